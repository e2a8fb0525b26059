//! Godot's binary Variant format (`var2bytes`, `PacketPeer.put_var`, `File.store_var`).
