//! The encryption of a TERA connection: the key exchange at its start and the stream cipher of
//! each direction after it, byte-exact with TERA Toolbox's (`tera-network-proxy`'s `Session`
//! with `tera-network-crypto`).
//!
//! A connection opens with the server's 4-byte hello (`01 00 00 00`), then four 128-byte keys in
//! turn: client, server, client, server. Everything after the fourth key is encrypted, each
//! direction with its own keystream: three lagged-Fibonacci generators of 55, 57 and 58 32-bit
//! words (taps 31, 50, 39), stepped by the majority of their carries, keyed by expanding a
//! 128-byte key to 680 bytes through SHA-0. The two directions' keys are mixed from the four
//! exchanged keys by rotations and XOR; the rotation amounts changed at major patch 45
//! ([`KeyMixing`]).
//!
//! * [`Handshake`]: feed it each direction's first bytes; it says how many were handshake and
//!   gives the [`Session`] once the four keys are in;
//! * [`Session`]: the two [`Cipher`]s; [`Cipher::apply`] encrypts and decrypts alike (the
//!   keystream is XORed in), in chunks of any size: a 4-byte word split across calls carries
//!   over.
//!
//! A sniffer's side of it, fed with what it read of each direction:
//!
//! ```
//! use def_runtime::tera::session::{HELLO, Handshake, KeyMixing};
//!
//! let mut handshake = Handshake::new(KeyMixing::FromPatch45);
//! // The server's first read: its hello, its two keys, and the start of the encrypted stream.
//! let server_read = [&HELLO[..], &[0x11; 256], b"\x8f\x02"].concat();
//! let used = handshake.push_server(&server_read)?;
//! assert_eq!(used, 260);
//! // The client's two keys, then encrypted bytes.
//! let client_read = [&[0x22; 256][..], b"\x07"].concat();
//! assert_eq!(handshake.push_client(&client_read), 256);
//!
//! let mut session = handshake.session().expect("both sides sent both keys");
//! let mut from_server = server_read[used..].to_vec();
//! session.server_to_client.apply(&mut from_server); // now plaintext, in place
//! # Ok::<(), def_runtime::tera::session::HandshakeError>(())
//! ```
//!
//! Covered: the classic cipher, both key mixings. Not covered: the closed native module newer
//! Toolbox releases load for the latest patches (it takes the protocol version and a per-packet
//! step that no public source describes); a session of such a patch does not decrypt with this.

use core::fmt;

/// Bytes of each exchanged key.
pub const KEY_LEN: usize = 128;

/// The server's hello, the first bytes of every connection.
pub const HELLO: [u8; 4] = [1, 0, 0, 0];

/// How the two directions' keys are mixed from the four exchanged keys: the rotation amounts
/// changed at major patch 45.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMixing {
    /// Major patches before 45.
    BeforePatch45,
    /// Major patch 45 and later.
    FromPatch45,
}

impl KeyMixing {
    /// The mixing of a major patch version.
    pub fn for_patch(major: u32) -> KeyMixing {
        if major < 45 {
            KeyMixing::BeforePatch45
        } else {
            KeyMixing::FromPatch45
        }
    }

    /// The three rotations: of the first server key, the second client key, the second server
    /// key (negative: to the right).
    fn shifts(self) -> [isize; 3] {
        match self {
            KeyMixing::BeforePatch45 => [-31, 17, -79],
            KeyMixing::FromPatch45 => [-67, 29, -41],
        }
    }
}

/// One lagged-Fibonacci generator: `size` words, the sum of the words at `pos` and `pos + tap`.
#[derive(Clone)]
struct Generator<const N: usize> {
    words: [u32; N],
    pos: usize,
    tap: usize,
    sum: u32,
    carry: bool,
}

impl<const N: usize> Generator<N> {
    fn new(words: &[u32], tap: usize) -> Self {
        let mut w = [0; N];
        w.copy_from_slice(&words[..N]);
        Generator {
            words: w,
            pos: 0,
            tap,
            sum: 0,
            carry: false,
        }
    }

    #[inline(always)]
    fn step(&mut self) {
        let (sum, carry) = self.words[self.pos].overflowing_add(self.words[self.tap]);
        self.sum = sum;
        self.carry = carry;
        self.pos = if self.pos + 1 == N { 0 } else { self.pos + 1 };
        self.tap = if self.tap + 1 == N { 0 } else { self.tap + 1 };
    }
}

/// The keystream of one direction. [`Cipher::apply`] XORs it into data, so the same call
/// encrypts and decrypts.
#[derive(Clone)]
pub struct Cipher {
    g1: Generator<55>,
    g2: Generator<57>,
    g3: Generator<58>,
    /// The keystream word of which `used` bytes have been applied (`used` 0: none pending).
    word: u32,
    used: usize,
}

impl fmt::Debug for Cipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The state is key material: not printed.
        f.debug_struct("Cipher").finish_non_exhaustive()
    }
}

impl Cipher {
    /// The cipher keyed by `key` (expanded to 680 bytes through SHA-0, as the game does).
    pub fn new(key: &[u8; KEY_LEN]) -> Cipher {
        let data = expand_key(key);
        let mut words = [0u32; 170];
        for (w, b) in words.iter_mut().zip(data.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Cipher {
            g1: Generator::new(&words[..55], 31),
            g2: Generator::new(&words[55..112], 50),
            g3: Generator::new(&words[112..], 39),
            word: 0,
            used: 0,
        }
    }

    /// The next keystream word: the generators whose carry agrees with the majority step.
    #[inline(always)]
    fn next_word(&mut self) -> u32 {
        let (c1, c2, c3) = (self.g1.carry, self.g2.carry, self.g3.carry);
        let majority = (c1 & c2) | (c3 & (c1 | c2));
        if c1 == majority {
            self.g1.step();
        }
        if c2 == majority {
            self.g2.step();
        }
        if c3 == majority {
            self.g3.step();
        }
        self.g1.sum ^ self.g2.sum ^ self.g3.sum
    }

    /// XORs the keystream into `data`, continuing where the last call stopped (a word split
    /// between calls is finished first).
    pub fn apply(&mut self, data: &mut [u8]) {
        let mut data = data;
        if self.used != 0 {
            let n = (4 - self.used).min(data.len());
            let bytes = self.word.to_le_bytes();
            for (b, k) in data[..n].iter_mut().zip(&bytes[self.used..]) {
                *b ^= k;
            }
            self.used = (self.used + n) % 4;
            data = &mut data[n..];
        }
        let mut words = data.chunks_exact_mut(4);
        for w in &mut words {
            let k = self.next_word().to_le_bytes();
            for (b, k) in w.iter_mut().zip(k) {
                *b ^= k;
            }
        }
        let rest = words.into_remainder();
        if !rest.is_empty() {
            self.word = self.next_word();
            let bytes = self.word.to_le_bytes();
            for (b, k) in rest.iter_mut().zip(bytes) {
                *b ^= k;
            }
            self.used = rest.len();
        }
    }
}

/// The two directions' ciphers of a connection.
#[derive(Clone, Debug)]
pub struct Session {
    /// Client to server.
    pub client_to_server: Cipher,
    /// Server to client.
    pub server_to_client: Cipher,
}

impl Session {
    /// The session of the four exchanged keys (each pair in the order sent).
    pub fn new(
        client_keys: [&[u8; KEY_LEN]; 2],
        server_keys: [&[u8; KEY_LEN]; 2],
        mixing: KeyMixing,
    ) -> Session {
        let [a, b, c] = mixing.shifts();
        let mut mixed = rotate(server_keys[0], a);
        xor_into(&mut mixed, client_keys[0]);
        xor_into(&mut mixed, &rotate(client_keys[1], b));
        let mut client_to_server = Cipher::new(&mixed);
        // The second key goes through the first cipher before keying the second.
        let mut second = rotate(server_keys[1], c);
        client_to_server.apply(&mut second);
        Session {
            client_to_server,
            server_to_client: Cipher::new(&second),
        }
    }
}

/// `key` rotated by `n` bytes: byte `i` of the result is byte `i + n` (modulo 128) of `key`.
fn rotate(key: &[u8; KEY_LEN], n: isize) -> [u8; KEY_LEN] {
    let mut out = *key;
    out.rotate_left(n.rem_euclid(KEY_LEN as isize) as usize);
    out
}

fn xor_into(dst: &mut [u8; KEY_LEN], src: &[u8; KEY_LEN]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// The 680 bytes that key the generators: 128, then the key repeated, then each 20-byte block
/// in turn replaced by the SHA-0 of the whole buffer (its five words byte-swapped).
fn expand_key(key: &[u8; KEY_LEN]) -> [u8; 680] {
    let mut data = [0u8; 680];
    data[0] = 128;
    for (i, d) in data.iter_mut().enumerate().skip(1) {
        *d = key[i % KEY_LEN];
    }
    for block in 0..680 / 20 {
        let hash = sha0(&data);
        for (j, word) in hash.chunks_exact(4).enumerate() {
            let at = block * 20 + j * 4;
            data[at..at + 4].copy_from_slice(&[word[3], word[2], word[1], word[0]]);
        }
    }
    data
}

/// SHA-0 (FIPS 180, before SHA-1 added the rotation to its message schedule).
fn sha0(msg: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let bit_len = (msg.len() as u64).wrapping_mul(8);
    let mut block = [0u8; 64];
    let mut chunks = msg.chunks_exact(64);
    for c in &mut chunks {
        block.copy_from_slice(c);
        compress(&mut h, &block);
    }
    let rest = chunks.remainder();
    block = [0; 64];
    block[..rest.len()].copy_from_slice(rest);
    block[rest.len()] = 0x80;
    if rest.len() >= 56 {
        compress(&mut h, &block);
        block = [0; 64];
    }
    block[56..].copy_from_slice(&bit_len.to_be_bytes());
    compress(&mut h, &block);
    let mut out = [0u8; 20];
    for (o, w) in out.chunks_exact_mut(4).zip(h) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

fn compress(h: &mut [u32; 5], block: &[u8; 64]) {
    let mut w = [0u32; 80];
    for (t, b) in block.chunks_exact(4).enumerate() {
        w[t] = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    }
    for t in 16..80 {
        w[t] = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
    }
    let [mut a, mut b, mut c, mut d, mut e] = *h;
    for (t, wt) in w.iter().enumerate() {
        let (f, k) = match t {
            0..20 => ((b & c) | (!b & d), 0x5A82_7999),
            20..40 => (b ^ c ^ d, 0x6ED9_EBA1),
            40..60 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
            _ => (b ^ c ^ d, 0xCA62_C1D6),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(*wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
    }
    for (x, v) in h.iter_mut().zip([a, b, c, d, e]) {
        *x = x.wrapping_add(v);
    }
}

/// What went wrong in a handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The server's first four bytes are not [`HELLO`].
    BadHello {
        /// The four bytes it sent.
        got: [u8; 4],
    },
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError::BadHello { got } => write!(
                f,
                "server stream offset 0: the hello is {:02x} {:02x} {:02x} {:02x}, not 01 00 00 00",
                got[0], got[1], got[2], got[3]
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for HandshakeError {}

/// The start of a connection, read from both directions as their bytes arrive: the server's
/// hello and two keys (260 bytes), the client's two keys (256 bytes). Each direction's bytes are
/// pushed as they come; [`Handshake::push_server`] and [`Handshake::push_client`] say how many
/// of them were handshake, and the rest of that chunk is already encrypted.
#[derive(Clone)]
pub struct Handshake {
    mixing: KeyMixing,
    server: [u8; 4 + 2 * KEY_LEN],
    server_len: usize,
    client: [u8; 2 * KEY_LEN],
    client_len: usize,
}

impl fmt::Debug for Handshake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handshake")
            .field("mixing", &self.mixing)
            .field("server_bytes", &self.server_len)
            .field("client_bytes", &self.client_len)
            .finish_non_exhaustive()
    }
}

impl Handshake {
    /// A handshake not yet begun.
    pub fn new(mixing: KeyMixing) -> Handshake {
        Handshake {
            mixing,
            server: [0; 4 + 2 * KEY_LEN],
            server_len: 0,
            client: [0; 2 * KEY_LEN],
            client_len: 0,
        }
    }

    /// Takes the server's bytes it still needs from the front of `data`; returns how many.
    pub fn push_server(&mut self, data: &[u8]) -> Result<usize, HandshakeError> {
        let n = (self.server.len() - self.server_len).min(data.len());
        self.server[self.server_len..self.server_len + n].copy_from_slice(&data[..n]);
        self.server_len += n;
        if self.server_len >= 4 && self.server[..4] != HELLO {
            let mut got = [0; 4];
            got.copy_from_slice(&self.server[..4]);
            return Err(HandshakeError::BadHello { got });
        }
        Ok(n)
    }

    /// Takes the client's bytes it still needs from the front of `data`; returns how many.
    pub fn push_client(&mut self, data: &[u8]) -> usize {
        let n = (self.client.len() - self.client_len).min(data.len());
        self.client[self.client_len..self.client_len + n].copy_from_slice(&data[..n]);
        self.client_len += n;
        n
    }

    /// The session, once both directions' keys are in.
    pub fn session(&self) -> Option<Session> {
        let [c1, s1, c2, s2] = self.keys()?;
        Some(Session::new([&c1, &c2], [&s1, &s2], self.mixing))
    }

    /// The four exchanged keys in the order they are sent (client, server, client, server), once
    /// both directions' keys are in: what another transform than the classic cipher is keyed
    /// with.
    pub fn keys(&self) -> Option<[[u8; KEY_LEN]; 4]> {
        if self.server_len < self.server.len() || self.client_len < self.client.len() {
            return None;
        }
        let key = |b: &[u8], at: usize| -> [u8; KEY_LEN] {
            let mut k = [0; KEY_LEN];
            k.copy_from_slice(&b[at..at + KEY_LEN]);
            k
        };
        Some([
            key(&self.client, 0),
            key(&self.server, 4),
            key(&self.client, KEY_LEN),
            key(&self.server, 4 + KEY_LEN),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha0_of_the_standard_examples() {
        // FIPS 180's examples, with SHA-0's published digests.
        let hex = |b: [u8; 20]| {
            b.iter()
                .map(|x| alloc::format!("{x:02x}"))
                .collect::<alloc::string::String>()
        };
        assert_eq!(
            hex(sha0(b"abc")),
            "0164b8a914cd2a5e74c4f7ff082c4d97f1edf880"
        );
        assert_eq!(
            hex(sha0(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "d2516ee1acfa5baf33dfc1c471e438449ef134c8"
        );
    }

    #[test]
    fn rotation_follows_the_sign() {
        let mut k = [0u8; KEY_LEN];
        for (i, b) in k.iter_mut().enumerate() {
            *b = i as u8;
        }
        assert_eq!(rotate(&k, 3)[0], 3);
        assert_eq!(rotate(&k, -3)[0], 125);
        assert_eq!(rotate(&k, -3)[3], 0);
    }
}
