# Live TCP test (runtime/tests/godot_engine.rs, tcp_round_trip_with_godot3_engine): the engine
# connects to the Rust server on 127.0.0.1:$GD_PORT through StreamPeerTCP + PacketPeerStream,
# sends every value below with put_var, then reads as many values back with get_var (the Rust
# side's own encodings of the same values, in the same order) and checks each against its own.
# Results go to $GD_OUT, one line per value ("ok <i>" or "mismatch <i> ..."), then "done".
extends SceneTree

func values():
	return [
		null, true, false, 42, -7, 1 << 40, 1.5, 0.1, -0.0,
		"héllo ✓", "",
		Vector2(1.5, -2), Rect2(1, 2, 3, 4), Vector3(1, 2, 3),
		Transform2D(Vector2(1, 0), Vector2(0, 1), Vector2(5, 6)),
		Plane(0, 1, 0, 2), Quat(0, 0, 0, 1), AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)),
		Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)),
		Transform(Basis(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)), Vector3(7, 8, 9)),
		Color(1, 0.5, 0.25, 1), NodePath("/root/a:b"),
		{"a": 1, 2: [3, "x"], "nested": {"k": null}},
		[1, "x", [null, 2.5]],
		PoolByteArray([1, 2, 3]), PoolIntArray([1, -2, 300000]), PoolRealArray([0.5, -1]),
		PoolStringArray(["a", "bc"]), PoolVector2Array([Vector2(1, 2)]),
		PoolVector3Array([Vector3(1, 2, 3)]), PoolColorArray([Color(0, 0, 0, 1)]),
	]

# Same type and value; NodePaths by text (their padding bytes are uninitialised), containers
# element by element, everything else by the engine's own encoding.
func same(a, b):
	if typeof(a) != typeof(b):
		return false
	match typeof(a):
		TYPE_ARRAY:
			if a.size() != b.size():
				return false
			for i in range(a.size()):
				if not same(a[i], b[i]):
					return false
			return true
		TYPE_DICTIONARY:
			if a.size() != b.size():
				return false
			var ka = a.keys()
			var kb = b.keys()
			for i in range(ka.size()):
				if not same(ka[i], kb[i]) or not same(a[ka[i]], b[kb[i]]):
					return false
			return true
		TYPE_NODE_PATH:
			return str(a) == str(b)
	return var2bytes(a) == var2bytes(b)

func _init():
	var out = File.new()
	out.open(OS.get_environment("GD_OUT"), File.WRITE)
	var tcp = StreamPeerTCP.new()
	var err = tcp.connect_to_host("127.0.0.1", int(OS.get_environment("GD_PORT")))
	var waited = 0
	while err == OK and tcp.get_status() == StreamPeerTCP.STATUS_CONNECTING and waited < 10000:
		OS.delay_msec(5)
		waited += 5
	if err != OK or tcp.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		out.store_line("error connect %d status %d" % [err, tcp.get_status()])
		out.close()
		quit()
		return
	var peer = PacketPeerStream.new()
	peer.stream_peer = tcp
	var vals = values()
	for v in vals:
		var e = peer.put_var(v)
		if e != OK:
			out.store_line("error put_var %d" % e)
	for i in range(vals.size()):
		waited = 0
		while peer.get_available_packet_count() == 0 and waited < 20000:
			OS.delay_msec(5)
			waited += 5
		if peer.get_available_packet_count() == 0:
			out.store_line("error timeout waiting for value %d" % i)
			break
		var got = peer.get_var()
		var e = peer.get_packet_error()
		if e != OK:
			out.store_line("mismatch %d: get_var error %d" % [i, e])
		elif same(got, vals[i]):
			out.store_line("ok %d" % i)
		else:
			out.store_line("mismatch %d: got %s, sent %s" % [i, str(got), str(vals[i])])
	tcp.disconnect_from_host()
	out.store_line("done")
	out.close()
	quit()
