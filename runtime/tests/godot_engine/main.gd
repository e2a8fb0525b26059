# Differential test driver for the Rust Godot Variant codec (runtime/tests/godot_engine.rs).
#
# Part A: the engine encodes a broad set of values with var2bytes (with and without full
# objects) and describes each value independently of var2bytes (floats as bit patterns taken
# through StreamPeerBuffer, strings as UTF-8 hex).
# Part B: the engine decodes byte strings the Rust side encoded (or crafted), through
# StreamPeerBuffer.get_var (which returns null on a decode error instead of aborting), and
# describes what it got, plus its own re-encoding.
#
# Environment: GD_IN (input lines, JSON per line), GD_OUT (output file, JSON per line).
extends SceneTree

const HEX = "0123456789abcdef"

func hexs(b):
	var s = ""
	for x in b:
		s += HEX[x >> 4] + HEX[x & 15]
	return s

func unhex(s):
	var out = PoolByteArray()
	var i = 0
	while i + 1 < s.length():
		out.append(HEX.find(s[i]) * 16 + HEX.find(s[i + 1]))
		i += 2
	return out

func f64le(x):
	var b = StreamPeerBuffer.new()
	b.big_endian = false
	b.put_double(x)
	return hexs(b.data_array)

func f32le(x):
	var b = StreamPeerBuffer.new()
	b.big_endian = false
	b.put_float(x)
	return hexs(b.data_array)

func f32list(xs):
	var out = []
	for x in xs:
		out.append(f32le(x))
	return out

func utf8(s):
	return hexs(s.to_utf8())

func describe(v):
	match typeof(v):
		TYPE_NIL:
			return {"t": "Nil"}
		TYPE_BOOL:
			return {"t": "bool", "v": v}
		TYPE_INT:
			return {"t": "int", "v": str(v)}
		TYPE_REAL:
			return {"t": "float", "f64_le": f64le(v)}
		TYPE_STRING:
			return {"t": "String", "utf8": utf8(v)}
		TYPE_VECTOR2:
			return {"t": "Vector2", "f32_le": f32list([v.x, v.y])}
		TYPE_RECT2:
			return {"t": "Rect2", "f32_le": f32list([v.position.x, v.position.y, v.size.x, v.size.y])}
		TYPE_VECTOR3:
			return {"t": "Vector3", "f32_le": f32list([v.x, v.y, v.z])}
		TYPE_TRANSFORM2D:
			return {"t": "Transform2D", "f32_le": f32list([v.x.x, v.x.y, v.y.x, v.y.y, v.origin.x, v.origin.y])}
		TYPE_PLANE:
			return {"t": "Plane", "f32_le": f32list([v.normal.x, v.normal.y, v.normal.z, v.d])}
		TYPE_QUAT:
			return {"t": "Quat", "f32_le": f32list([v.x, v.y, v.z, v.w])}
		TYPE_AABB:
			return {"t": "AABB", "f32_le": f32list([v.position.x, v.position.y, v.position.z, v.size.x, v.size.y, v.size.z])}
		TYPE_BASIS:
			return {"t": "Basis", "f32_le": f32list(basis_rows(v))}
		TYPE_TRANSFORM:
			var l = basis_rows(v.basis)
			l += [v.origin.x, v.origin.y, v.origin.z]
			return {"t": "Transform", "f32_le": f32list(l)}
		TYPE_COLOR:
			return {"t": "Color", "f32_le": f32list([v.r, v.g, v.b, v.a])}
		TYPE_NODE_PATH:
			var names = []
			for i in range(v.get_name_count()):
				names.append(utf8(v.get_name(i)))
			var subs = []
			for i in range(v.get_subname_count()):
				subs.append(utf8(v.get_subname(i)))
			return {"t": "NodePath", "absolute": v.is_absolute(), "names_utf8": names, "subnames_utf8": subs}
		TYPE_RID:
			return {"t": "RID", "id": v.get_id()}
		TYPE_OBJECT:
			if v == null:
				return {"t": "Object", "null": true}
			if v.get_class() == "EncodedObjectAsID":
				return {"t": "ObjectId", "id": str(v.get_object_id())}
			var props = []
			for p in v.get_property_list():
				if p.usage & PROPERTY_USAGE_STORAGE:
					props.append([p.name, describe(v.get(p.name))])
			return {"t": "Object", "class": v.get_class(), "stored_props": props}
		TYPE_DICTIONARY:
			var entries = []
			for k in v.keys():
				entries.append([describe(k), describe(v[k])])
			return {"t": "Dictionary", "entries": entries}
		TYPE_ARRAY:
			var items = []
			for x in v:
				items.append(describe(x))
			return {"t": "Array", "items": items}
		TYPE_RAW_ARRAY:
			return {"t": "PoolByteArray", "hex": hexs(v)}
		TYPE_INT_ARRAY:
			var ints = []
			for x in v:
				ints.append(str(x))
			return {"t": "PoolIntArray", "v": ints}
		TYPE_REAL_ARRAY:
			return {"t": "PoolRealArray", "f32_le": f32list(v)}
		TYPE_STRING_ARRAY:
			var strs = []
			for x in v:
				strs.append({"utf8": utf8(x)})
			return {"t": "PoolStringArray", "items": strs}
		TYPE_VECTOR2_ARRAY:
			var l2 = []
			for x in v:
				l2.append(f32list([x.x, x.y]))
			return {"t": "PoolVector2Array", "f32_le": l2}
		TYPE_VECTOR3_ARRAY:
			var l3 = []
			for x in v:
				l3.append(f32list([x.x, x.y, x.z]))
			return {"t": "PoolVector3Array", "f32_le": l3}
		TYPE_COLOR_ARRAY:
			var lc = []
			for x in v:
				lc.append(f32list([x.r, x.g, x.b, x.a]))
			return {"t": "PoolColorArray", "f32_le": lc}
	return {"t": "unknown", "type": typeof(v)}

# Basis elements[row][col]; the GDScript axes x, y, z are the columns.
func basis_rows(b):
	return [b.x.x, b.y.x, b.z.x, b.x.y, b.y.y, b.z.y, b.x.z, b.y.z, b.z.z]

func values():
	var res = Resource.new()
	res.resource_name = "named"
	var nested = {"list": [1, 2.5, "three", Vector2(4, 5)], "map": {"k": {"deep": [[], [[]]]}}}
	return [
		["nil", null],
		["true", true],
		["false", false],
		["int_0", 0],
		["int_neg", -7],
		["int_i32_max", 2147483647],
		["int_i32_max_plus1", 2147483648],
		["int_i32_min", -2147483648],
		["int_i32_min_minus1", -2147483649],
		["int_i64_max", 9223372036854775807],
		["int_big_neg", -81985529216486895],
		["float_0", 0.0],
		["float_neg0", -0.0],
		["float_half", 0.5],
		["float_0.1", 0.1],
		["float_third", 1.0 / 3.0],
		["float_1e300", 1e300],
		["float_1e-300", 1e-300],
		["float_inf", INF],
		["float_neg_inf", -INF],
		["float_nan", NAN],
		["float_16777216", 16777216.0],
		["float_16777217", 16777217.0],
		["string_empty", ""],
		["string_a", "a"],
		["string_abcd", "abcd"],
		["string_unicode", "héllo wörld ✓ 日本 😀"],
		["string_quotes", "quote\"back\\slash\ttab\nnl"],
		["vector2", Vector2(1.5, -2.25)],
		["vector2_frac", Vector2(0.1, 1e10)],
		["rect2", Rect2(1, 2, 3.5, 4.25)],
		["vector3", Vector3(0.1, 0.2, 0.3)],
		["transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5.5, 6.5))],
		["plane", Plane(0.6, 0.8, 0, 2.5)],
		["quat", Quat(0.1, 0.2, 0.3, 0.9)],
		["aabb", AABB(Vector3(1, 2, 3), Vector3(4.5, 5.5, 6.5))],
		["basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9))],
		["transform", Transform(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12.5))],
		["color", Color(0.1, 0.2, 0.3, 0.4)],
		["nodepath_empty", NodePath("")],
		["nodepath_rel", NodePath("a/b")],
		["nodepath_abs_sub", NodePath("/root/Main/Player:position:x")],
		["nodepath_sub_only", NodePath(":modulate")],
		["nodepath_dots", NodePath("../sibling/child")],
		["rid", RID()],
		["object_null", null_object()],
		["object_reference", Reference.new()],
		["object_resource", res],
		["dict_empty", {}],
		["dict_mixed", {1: "one", "two": 2.0, Vector2(1, 2): [1, 2], null: true, false: null}],
		["dict_nested", nested],
		["array_empty", []],
		["array_mixed", [1, "a", 2.5, null, [true], {"x": PoolByteArray([1, 2, 3])}]],
		["array_with_nodepath", [NodePath("x/y:z"), 5, NodePath("/w")]],
		["pool_bytes_0", PoolByteArray()],
		["pool_bytes_3", PoolByteArray([1, 2, 3])],
		["pool_bytes_7", PoolByteArray([255, 0, 127, 128, 1, 2, 3])],
		["pool_ints", PoolIntArray([0, -1, 2147483647, -2147483648, 42])],
		["pool_reals", PoolRealArray([0.5, 0.1, -1e30, 1e-40])],
		["pool_strings", PoolStringArray(["", "a", "bc", "def", "ghij", "ünï"])],
		["pool_vector2s", PoolVector2Array([Vector2(1, 2), Vector2(0.1, -0.2)])],
		["pool_vector3s", PoolVector3Array([Vector3(1, 2, 3), Vector3(0.1, 0.2, 0.3)])],
		["pool_colors", PoolColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.4)])],
		["pool_colors_empty", PoolColorArray()],
	]

func null_object():
	var n = Node.new()
	n.free()
	return n

func _init():
	var out_path = OS.get_environment("GD_OUT")
	var in_path = OS.get_environment("GD_IN")
	var out = File.new()
	if out.open(out_path, File.WRITE) != OK:
		print("cannot open GD_OUT ", out_path)
		quit()
		return
	for pair in values():
		var v = pair[1]
		out.store_line(JSON.print({
			"part": "encode",
			"name": pair[0],
			"hex": hexs(var2bytes(v)),
			"hex_full": hexs(var2bytes(v, true)),
			"desc": describe(v),
		}))
	var inp = File.new()
	if in_path != "" and inp.open(in_path, File.READ) == OK:
		while not inp.eof_reached():
			var line = inp.get_line()
			if line == "":
				continue
			var rec = parse_json(line)
			var bytes = unhex(rec["hex"])
			var allow = rec["allow"] == "1"
			# The decoder's own error messages name the Error it returns
			# ("... Returned: ERR_INVALID_DATA"): a marker before each input tells them apart.
			printerr("@@probe " + rec["name"])
			var spb = StreamPeerBuffer.new()
			spb.put_32(bytes.size())
			spb.put_data(bytes)
			spb.seek(0)
			var v = spb.get_var(allow)
			out.store_line(JSON.print({
				"part": "decode",
				"name": rec["name"],
				# Values deeper than GDScript's call depth are not described.
				"desc": {"t": "deep"} if rec["name"].begins_with("deep:") else describe(v),
				"reencode": hexs(var2bytes(v, allow)),
			}))
	out.store_line(JSON.print({"part": "done"}))
	out.close()
	quit()
