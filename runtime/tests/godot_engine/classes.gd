# Prints every class of the running engine with 1 if ClassDB.can_instance (what decode_variant
# needs to build a full object; otherwise it fails with ERR_UNAVAILABLE), else 0. Used to make and
# check runtime/src/godot/classes.rs (tests/godot_engine.rs, godot3_class_list_is_the_engines).
extends SceneTree
func _init():
	var names = Array(ClassDB.get_class_list())
	names.sort()
	var f = File.new()
	f.open(OS.get_environment("GD_OUT"), File.WRITE)
	for n in names:
		f.store_line("%s %d" % [n, 1 if ClassDB.can_instance(n) else 0])
	f.close()
	quit()
