//! A TERA proxy over TCP (feature `proxy`): it accepts game clients, opens one connection to the
//! server per client, and carries both directions through a [`Dispatch`], as TERA Toolbox does.
//!
//! Per connection:
//!
//! 1. **Handshake.** The server's hello and keys and the client's keys are forwarded as they come
//!    and pass through unchanged (the proxy is a man in the middle that knows the keys, not one
//!    that replaces them); once all four are in, each direction gets its [`Transform`] (by
//!    default the classic cipher of [`session`](super::session), with the builder's
//!    [`KeyMixing`]). [`Proxy::plaintext`] skips this step: no handshake, no cipher (emulators,
//!    tests).
//! 2. **Per direction**, in a task of its own: read what the socket gives, decrypt it, split it
//!    into packets, hand each to the connection's [`Dispatch`], then encrypt what is to be
//!    written (fake packets first, then the packet as the hooks left it) and write it in one
//!    call. Fake packets for the other direction are handed to the other task, which writes
//!    them at once, between two of its own reads; so are those sent from outside the hooks
//!    through the connection's [`Sender`].
//! 3. **End.** When a side shuts down its sending half, the proxy shuts down its own sending half
//!    towards the other side and goes on carrying the other direction until that side closes
//!    too (a half-close is carried through). A read or write error (a reset), a handshake cut
//!    short, a wrong hello or a stream that cannot be split (a header length below 4) ends both
//!    directions at once; [`Closed::error`] says which and where.
//!
//! A hook that panics or fails never ends a connection: the packet goes on unchanged and the
//! failure is reported once ([`Closed::failures`]). An unmodified stream leaves the proxy byte
//! for byte as it came in.
//!
//! Decisions:
//! * One tokio task per direction, the two sharing the connection's `Dispatch` behind a mutex
//!   taken once per read (never across an `await`): a single task serving both directions could
//!   not read one side while a write to the other waits, which deadlocks two peers that both
//!   write before reading.
//! * tokio's `rt`, `net` and `io-util` only: no macros, timers or channels; the hand-off of
//!   fake packets between the two tasks is a queue and a waker of its own.
//! * Covered sessions are those of [`session`](super::session): the classic cipher, both key
//!   mixings; another scheme plugs in through [`Proxy::transform`].
//!
//! Limits a user should know:
//! * Keys are random bytes, so a client that sends 128 bytes of garbage as a key is not told
//!   apart from a real one: its stream fails later, when the decrypted bytes do not split into
//!   packets ([`ProxyError::Frame`]), and only its own connection ends.
//! * There is no handshake timeout (that would need tokio's timers): a peer that sends part of
//!   its keys and goes silent holds its connection (one task pair, a few KiB) until it closes.
//!   Put the listener behind your own accept limit where that matters.
//! * Bytes of a packet cut short by the end of a stream are not forwarded (there is no packet
//!   to hand to the hooks); the connection's [`Closed::error`] says so.
//!
//! ```no_run
//! use def_runtime::Options;
//! use def_runtime::tera::dispatch::Dispatch;
//! use def_runtime::tera::protocol::OpcodeMap;
//! use def_runtime::tera::proxy::Proxy;
//!
//! const MAP: OpcodeMap = OpcodeMap::new(&[], &[], &[]);
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
//! runtime.block_on(async {
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:7801").await?;
//!     let upstream = "127.0.0.1:7802".parse().expect("an address");
//!     Proxy::new(upstream, |_| Dispatch::new(MAP, Options::new()))
//!         .on_close(|client, closed| eprintln!("{client}: {closed:?}"))
//!         .serve(listener)
//!         .await
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::boxed::Box;
use std::fmt;
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::string::{String, ToString};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Poll, Waker};
use std::vec::Vec;

use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

use super::dispatch::{Direction, Dispatch, Handled, HookFailure};
use super::framing::{FrameError, Splitter};
use super::session::{Cipher, Handshake, HandshakeError, KEY_LEN, KeyMixing};

/// What turns one direction's bytes into plaintext and back, in place: the classic cipher by
/// default; another scheme through [`Proxy::transform`].
///
/// Each direction has its own. [`decrypt`](Self::decrypt) gets every byte read from the
/// sender after the handshake, in order, in chunks of any size; [`encrypt`](Self::encrypt) every
/// byte written to the receiver, in order. With the keys passing through unchanged, both
/// follow the same keystream, each at its own position (the proxy may write more or fewer
/// bytes than it read).
pub trait Transform: Send + 'static {
    /// Bytes read from the sender, turned into plaintext in place.
    fn decrypt(&mut self, data: &mut [u8]);
    /// Plaintext to be written to the receiver, turned into what it expects in place.
    fn encrypt(&mut self, data: &mut [u8]);
}

/// The classic cipher of one direction: the same keystream twice, one copy for what is read,
/// one for what is written.
struct Classic {
    read: Cipher,
    write: Cipher,
}

impl Transform for Classic {
    fn decrypt(&mut self, data: &mut [u8]) {
        self.read.apply(data);
    }

    fn encrypt(&mut self, data: &mut [u8]) {
        self.write.apply(data);
    }
}

/// Makes the two directions' transforms (client to server, server to client) of a handshake
/// whose four keys are in.
type MakeTransforms = dyn Fn(&Handshake) -> [Box<dyn Transform>; 2] + Send + Sync;

#[derive(Clone)]
enum Crypto {
    Plain,
    Keyed {
        mixing: KeyMixing,
        make: Option<Arc<MakeTransforms>>,
    },
}

/// Why a connection ended other than by both sides closing.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProxyError {
    /// The server could not be reached.
    Connect {
        /// The server's address.
        upstream: SocketAddr,
        /// What connecting gave.
        error: io::Error,
    },
    /// Reading from the sending side or writing to the receiving side of a direction failed
    /// (e.g. a reset).
    Io {
        /// The direction whose socket failed.
        direction: Direction,
        /// Whether writing (to the receiver) failed, else reading (from the sender).
        writing: bool,
        /// What the socket gave.
        error: io::Error,
    },
    /// The server's hello is not `01 00 00 00`.
    Handshake(HandshakeError),
    /// A side closed before it sent its whole part of the handshake.
    HandshakeCut {
        /// The direction of the side that closed.
        direction: Direction,
        /// Bytes of the handshake it sent.
        got: usize,
        /// Bytes its part has (260 from the server, 256 from the client).
        needed: usize,
    },
    /// A direction's plaintext cannot be split into packets (or ends inside one).
    Frame {
        /// The direction.
        direction: Direction,
        /// Where and why (offsets count plaintext bytes after the handshake).
        error: FrameError,
    },
    /// A direction's task ended in a panic outside the hooks (in a [`Transform`]).
    Panicked {
        /// The direction.
        direction: Direction,
        /// What the task reported.
        what: String,
    },
}

fn side(direction: Direction, writing: bool) -> &'static str {
    match (direction, writing) {
        (Direction::ToServer, false) => "reading from the client",
        (Direction::ToServer, true) => "writing to the server",
        (Direction::ToClient, false) => "reading from the server",
        (Direction::ToClient, true) => "writing to the client",
    }
}

fn name(direction: Direction) -> &'static str {
    match direction {
        Direction::ToServer => "client to server",
        Direction::ToClient => "server to client",
    }
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Connect { upstream, error } => {
                write!(f, "connecting to the server at {upstream}: {error}")
            }
            ProxyError::Io {
                direction,
                writing,
                error,
            } => write!(
                f,
                "{}: {}: {error}",
                name(*direction),
                side(*direction, *writing)
            ),
            ProxyError::Handshake(e) => write!(f, "handshake: {e}"),
            ProxyError::HandshakeCut {
                direction,
                got,
                needed,
            } => write!(
                f,
                "{}: the {} closed during the handshake, after {got} of its {needed} bytes",
                name(*direction),
                match direction {
                    Direction::ToServer => "client",
                    Direction::ToClient => "server",
                }
            ),
            ProxyError::Frame { direction, error } => write!(f, "{}: {error}", name(*direction)),
            ProxyError::Panicked { direction, what } => {
                write!(f, "{}: the task panicked: {what}", name(*direction))
            }
        }
    }
}

impl std::error::Error for ProxyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProxyError::Connect { error, .. } | ProxyError::Io { error, .. } => Some(error),
            ProxyError::Handshake(e) => Some(e),
            ProxyError::Frame { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// How a connection ended, and what it carried.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Closed {
    /// Packets read from the client (handled by the hooks), fakes not counted.
    pub to_server: u64,
    /// Packets read from the server.
    pub to_client: u64,
    /// The hooks that failed, each once.
    pub failures: Vec<HookFailure>,
    /// `None` when both sides closed; else what ended the connection.
    pub error: Option<ProxyError>,
}

type OnClose = dyn Fn(SocketAddr, Closed) + Send + Sync;

/// A TERA proxy: the server's address, the hooks of each connection, and how its streams are
/// encrypted. See the module docs.
#[derive(Clone)]
pub struct Proxy {
    upstream: SocketAddr,
    dispatch: Arc<dyn Fn(&Sender) -> Dispatch + Send + Sync>,
    crypto: Crypto,
    on_close: Option<Arc<OnClose>>,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("upstream", &self.upstream)
            .field("plaintext", &matches!(self.crypto, Crypto::Plain))
            .finish_non_exhaustive()
    }
}

impl Proxy {
    /// A proxy to the server at `upstream`; `dispatch` makes the hooks of each connection (called
    /// once per client, with the [`Sender`] that sends fake packets into that connection from
    /// outside its hooks). Encrypted with the classic cipher, keys mixed as from patch 45.
    pub fn new(
        upstream: SocketAddr,
        dispatch: impl Fn(&Sender) -> Dispatch + Send + Sync + 'static,
    ) -> Proxy {
        Proxy {
            upstream,
            dispatch: Arc::new(dispatch),
            crypto: Crypto::Keyed {
                mixing: KeyMixing::FromPatch45,
                make: None,
            },
            on_close: None,
        }
    }

    /// No handshake and no cipher: packets from the first byte, in plaintext.
    pub fn plaintext(mut self) -> Proxy {
        self.crypto = Crypto::Plain;
        self
    }

    /// The key mixing of the classic cipher (the default: [`KeyMixing::FromPatch45`]). Turns
    /// encryption back on after [`Proxy::plaintext`].
    pub fn key_mixing(mut self, mixing: KeyMixing) -> Proxy {
        self.crypto = match self.crypto {
            Crypto::Keyed { make, .. } => Crypto::Keyed { mixing, make },
            Crypto::Plain => Crypto::Keyed { mixing, make: None },
        };
        self
    }

    /// Another transform than the classic cipher: after the handshake (which still takes place,
    /// and whose keys pass through unchanged), `make` gets it, its four keys in
    /// ([`Handshake::keys`]), and returns the transforms of client to server and of server to
    /// client. Turns encryption back on after [`Proxy::plaintext`].
    pub fn transform(
        mut self,
        make: impl Fn(&Handshake) -> [Box<dyn Transform>; 2] + Send + Sync + 'static,
    ) -> Proxy {
        let mixing = match self.crypto {
            Crypto::Keyed { mixing, .. } => mixing,
            Crypto::Plain => KeyMixing::FromPatch45,
        };
        self.crypto = Crypto::Keyed {
            mixing,
            make: Some(Arc::new(make)),
        };
        self
    }

    /// Called by [`Proxy::serve`] when a connection ends, with the client's address.
    pub fn on_close(mut self, f: impl Fn(SocketAddr, Closed) + Send + Sync + 'static) -> Proxy {
        self.on_close = Some(Arc::new(f));
        self
    }

    /// Accepts clients on `listener` for ever, each connection in a task of its own (so it must
    /// run inside a tokio runtime). Returns only when accepting fails for the listener itself
    /// (a client that gave up before it was accepted, `ConnectionAborted` or
    /// `ConnectionReset`, is skipped); a connection's failure ends that connection only.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        loop {
            let (client, addr) = match listener.accept().await {
                Ok(c) => c,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                            | io::ErrorKind::Interrupted
                    ) =>
                {
                    continue;
                }
                Err(e) => return Err(e),
            };
            let proxy = self.clone();
            tokio::spawn(async move {
                let closed = proxy.connection(client).await;
                if let Some(f) = &proxy.on_close {
                    f(addr, closed);
                }
            });
        }
    }

    /// Serves one accepted client until both sides closed or the connection failed: connects to
    /// the server, and carries both directions (each in a task of its own, so it must run inside
    /// a tokio runtime).
    pub async fn connection(&self, client: TcpStream) -> Closed {
        let upstream = match TcpStream::connect(self.upstream).await {
            Ok(s) => s,
            Err(error) => {
                return Closed {
                    error: Some(ProxyError::Connect {
                        upstream: self.upstream,
                        error,
                    }),
                    ..Closed::default()
                };
            }
        };
        // Packets are written whole, one write per read: no reason to wait for more.
        let _ = client.set_nodelay(true);
        let _ = upstream.set_nodelay(true);
        let handshake = match &self.crypto {
            Crypto::Plain => None,
            Crypto::Keyed { mixing, make } => Some((Handshake::new(*mixing), make.clone())),
        };
        let shared = Arc::new_cyclic(|conn| Conn {
            state: Mutex::new(Shared {
                dispatch: (self.dispatch)(&Sender { conn: conn.clone() }),
                transforms: [None, None],
                handshake,
                outbox: [Vec::new(), Vec::new()],
                abort: false,
                failures: Vec::new(),
            }),
            wakers: Mutex::new([None, None]),
            outside: Mutex::new(Vec::new()),
        });
        let (client_in, client_out) = client.into_split();
        let (server_in, server_out) = upstream.into_split();
        let mut tasks = [
            tokio::spawn(pump(
                Direction::ToServer,
                client_in,
                server_out,
                shared.clone(),
            )),
            tokio::spawn(pump(
                Direction::ToClient,
                server_in,
                client_out,
                shared.clone(),
            )),
        ];
        let mut results: [Option<Result<u64, ProxyError>>; 2] = [None, None];
        poll_fn(|cx| {
            for (i, task) in tasks.iter_mut().enumerate() {
                if results[i].is_none()
                    && let Poll::Ready(r) = Pin::new(task).poll(cx)
                {
                    results[i] = Some(r.unwrap_or_else(|e| {
                        Err(ProxyError::Panicked {
                            direction: DIRECTIONS[i],
                            what: e.to_string(),
                        })
                    }));
                }
            }
            let failed = results.iter().any(|r| matches!(r, Some(Err(_))));
            if failed {
                // The other direction ends now too, whatever it waits on; its sockets close.
                for t in &tasks {
                    t.abort();
                }
                return Poll::Ready(());
            }
            if results.iter().all(Option::is_some) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
        let mut closed = Closed::default();
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Some(Ok(n)) if i == 0 => closed.to_server = n,
                Some(Ok(n)) => closed.to_client = n,
                Some(Err(e)) if closed.error.is_none() => closed.error = Some(e),
                _ => {}
            }
        }
        let mut state = lock(&shared);
        closed.failures = std::mem::take(&mut state.failures);
        closed
    }
}

const DIRECTIONS: [Direction; 2] = [Direction::ToServer, Direction::ToClient];

fn index(direction: Direction) -> usize {
    match direction {
        Direction::ToServer => 0,
        Direction::ToClient => 1,
    }
}

/// What the two directions of a connection share.
struct Shared {
    dispatch: Dispatch,
    /// Each direction's transform, made by the direction that completed the handshake and taken
    /// by its own.
    transforms: [Option<Box<dyn Transform>>; 2],
    handshake: Option<(Handshake, Option<Arc<MakeTransforms>>)>,
    /// Fake packets for each direction, made by the other one's hooks.
    outbox: [Vec<Vec<u8>>; 2],
    /// A direction failed: the other stops.
    abort: bool,
    failures: Vec<HookFailure>,
}

/// A connection: its state, and what a [`Sender`] reaches without that state's lock (a sender
/// may be used inside a hook, which runs under it). Locks are taken in the order state, then
/// `outside` or `wakers`, never the other way.
struct Conn {
    state: Mutex<Shared>,
    /// Each direction's task, to wake when there is something for it.
    wakers: Mutex<[Option<Waker>; 2]>,
    /// Fake packets sent through a [`Sender`], not yet through the hooks.
    outside: Mutex<Vec<(Direction, Vec<u8>)>>,
}

impl Conn {
    fn wake(&self, i: usize) {
        let w = relock(&self.wakers)[i].take();
        if let Some(w) = w {
            w.wake();
        }
    }
}

/// A mutex's guard whatever a panic left: hooks run under `catch_unwind` and transforms outside
/// every lock, so a poisoned lock only means a panic elsewhere, after which the data is whole.
fn relock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn lock(conn: &Conn) -> MutexGuard<'_, Shared> {
    relock(&conn.state)
}

/// Sends fake packets into a connection from outside its hooks (a task of the mod's, a
/// timer): given to the closure that makes the connection's [`Dispatch`], kept as long as
/// wanted. Inside a hook, [`Context::send`](super::dispatch::Context::send) does the same.
#[derive(Clone)]
pub struct Sender {
    conn: std::sync::Weak<Conn>,
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("connected", &(self.conn.strong_count() > 0))
            .finish()
    }
}

impl Sender {
    /// Sends `packet` (a whole packet, header included) `direction`: it goes through the hooks
    /// as a fake packet, then is written between two packets of that direction. Returns false
    /// when the connection has ended (nothing is sent); a packet sent while it is ending, or
    /// for a direction whose receiving side was already shut down, is dropped.
    pub fn send(&self, direction: Direction, packet: Vec<u8>) -> bool {
        let Some(conn) = self.conn.upgrade() else {
            return false;
        };
        relock(&conn.outside).push((direction, packet));
        conn.wake(0);
        conn.wake(1);
        true
    }
}

/// Runs the packets sent through a [`Sender`] through the hooks and puts them in the outboxes.
fn take_outside(conn: &Conn) {
    let mut s = lock(conn);
    let sent = std::mem::take(&mut *relock(&conn.outside));
    for (d, p) in sent {
        s.dispatch.send(d, p);
    }
    let Shared {
        dispatch, outbox, ..
    } = &mut *s;
    for (d, p) in dispatch.take_sent() {
        outbox[index(d)].push(p);
    }
    let failures = s.dispatch.take_failures();
    s.failures.extend(failures);
    drop(s);
    conn.wake(0);
    conn.wake(1);
}

/// What a direction's task waits for.
enum Event {
    Read(usize),
    Fakes(Vec<Vec<u8>>),
    Outside,
    Ready,
    Abort,
}

/// Bytes read at most per call.
const READ_LEN: usize = 64 * 1024;

/// One direction of a connection: `from`'s bytes through the hooks to `to`, until `from` shuts
/// down its sending half (then `to` is shut down too). Returns the packets read.
async fn pump(
    direction: Direction,
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    shared: Arc<Conn>,
) -> Result<u64, ProxyError> {
    let me = index(direction);
    let other = 1 - me;
    let io_err = |writing: bool| {
        move |error| ProxyError::Io {
            direction,
            writing,
            error,
        }
    };
    // Every write towards the receiver, its failure reported once for the connection.
    let write = async |to: &mut OwnedWriteHalf, bytes: &[u8]| {
        to.write_all(bytes)
            .await
            .map_err(|e| fail(&shared, io_err(true)(e)))
    };
    let (mut handshake_left, needed) = {
        let s = lock(&shared);
        match (&s.handshake, direction) {
            (None, _) => (0, 0),
            (Some(_), Direction::ToClient) => (4 + 2 * KEY_LEN, 4 + 2 * KEY_LEN),
            (Some(_), Direction::ToServer) => (2 * KEY_LEN, 2 * KEY_LEN),
        }
    };
    let plaintext = needed == 0;
    let mut transform: Option<Box<dyn Transform>> = None;
    // Bytes after this side's handshake that came before the other side's keys.
    let mut early: Vec<u8> = Vec::new();
    let mut split = Splitter::new();
    let mut buf = vec![0u8; READ_LEN];
    let mut out: Vec<u8> = Vec::with_capacity(READ_LEN);
    let mut packets = 0u64;
    loop {
        let waiting = !plaintext && handshake_left == 0 && transform.is_none();
        let writable = plaintext || transform.is_some();
        let event = poll_fn(|cx| {
            // The waker first: whatever is handed over after the checks below wakes it.
            relock(&shared.wakers)[me] = Some(cx.waker().clone());
            {
                let mut s = lock(&shared);
                if s.abort {
                    return Poll::Ready(Ok(Event::Abort));
                }
                if !relock(&shared.outside).is_empty() {
                    return Poll::Ready(Ok(Event::Outside));
                }
                if waiting {
                    if s.transforms[me].is_some() {
                        return Poll::Ready(Ok(Event::Ready));
                    }
                } else if !s.outbox[me].is_empty() && writable {
                    return Poll::Ready(Ok(Event::Fakes(std::mem::take(&mut s.outbox[me]))));
                }
            }
            if waiting {
                return Poll::Pending;
            }
            let mut rb = ReadBuf::new(&mut buf);
            match Pin::new(&mut from).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => Poll::Ready(Ok(Event::Read(rb.filled().len()))),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            }
        })
        .await;
        let n = match event {
            Err(e) => return Err(fail(&shared, io_err(false)(e))),
            Ok(Event::Abort) => return Ok(packets),
            Ok(Event::Outside) => {
                take_outside(&shared);
                continue;
            }
            Ok(Event::Ready) => {
                transform = lock(&shared).transforms[me].take();
                let Some(t) = transform.as_mut() else {
                    continue;
                };
                let mut data = std::mem::take(&mut early);
                let (n, frame_error) = carry(
                    &mut data, &mut **t, direction, &mut split, &shared, &mut out,
                );
                packets += n;
                write(&mut to, &out).await?;
                if let Some(e) = frame_error {
                    return Err(fail(&shared, e));
                }
                continue;
            }
            Ok(Event::Fakes(fakes)) => {
                out.clear();
                for f in &fakes {
                    out.extend_from_slice(f);
                }
                if let Some(t) = transform.as_mut() {
                    t.encrypt(&mut out);
                }
                write(&mut to, &out).await?;
                continue;
            }
            Ok(Event::Read(n)) => n,
        };
        if n == 0 {
            if handshake_left > 0 {
                return Err(fail(
                    &shared,
                    ProxyError::HandshakeCut {
                        direction,
                        got: needed - handshake_left,
                        needed,
                    },
                ));
            }
            // The sender shut down its half: so does the proxy towards the receiver; the other
            // direction goes on.
            let _ = to.shutdown().await;
            if let Err(error) = split.finish() {
                return Err(fail(&shared, ProxyError::Frame { direction, error }));
            }
            return Ok(packets);
        }
        let mut data = &mut buf[..n];
        if handshake_left > 0 {
            let k = handshake_left.min(n);
            let (head, rest) = data.split_at_mut(k);
            {
                let mut s = lock(&shared);
                let Shared {
                    handshake,
                    transforms,
                    ..
                } = &mut *s;
                if let Some((h, make)) = handshake.as_mut() {
                    match direction {
                        Direction::ToClient => {
                            if let Err(e) = h.push_server(head) {
                                drop(s);
                                return Err(fail(&shared, ProxyError::Handshake(e)));
                            }
                        }
                        Direction::ToServer => {
                            h.push_client(head);
                        }
                    }
                    if h.keys().is_some() && transforms.iter().all(Option::is_none) {
                        let made = match make {
                            Some(make) => make(h),
                            None => classic(h),
                        };
                        *transforms = made.map(Some);
                        shared.wake(other);
                    }
                }
            }
            handshake_left -= k;
            // The handshake passes through as it came.
            write(&mut to, head).await?;
            if handshake_left == 0 {
                transform = lock(&shared).transforms[me].take();
            }
            data = rest;
            if data.is_empty() {
                continue;
            }
        }
        if !plaintext && transform.is_none() {
            // Encrypted bytes before the other side's keys (a peer that does not wait for
            // them): kept until the session exists.
            early.extend_from_slice(data);
            continue;
        }
        let (n, frame_error) = match transform.as_mut() {
            Some(t) => carry(data, &mut **t, direction, &mut split, &shared, &mut out),
            None => carry(data, &mut Plain, direction, &mut split, &shared, &mut out),
        };
        packets += n;
        write(&mut to, &out).await?;
        if let Some(e) = frame_error {
            return Err(fail(&shared, e));
        }
    }
}

/// The classic cipher's transforms of a handshake whose keys are in.
fn classic(h: &Handshake) -> [Box<dyn Transform>; 2] {
    match h.session() {
        Some(s) => [
            Box::new(Classic {
                read: s.client_to_server.clone(),
                write: s.client_to_server,
            }),
            Box::new(Classic {
                read: s.server_to_client.clone(),
                write: s.server_to_client,
            }),
        ],
        // Called only once the keys are in; were it not so, nothing is decrypted.
        None => [Box::new(Identity), Box::new(Identity)],
    }
}

struct Identity;

impl Transform for Identity {
    fn decrypt(&mut self, _: &mut [u8]) {}
    fn encrypt(&mut self, _: &mut [u8]) {}
}

/// Tells the other direction to stop; returns the error.
fn fail(conn: &Conn, e: ProxyError) -> ProxyError {
    lock(conn).abort = true;
    conn.wake(0);
    conn.wake(1);
    e
}

/// Carries bytes read from one side to what is to be written to the other: decrypted, split,
/// handed to the hooks ([`dispatch`]) and encrypted again into `out`.
fn carry(
    data: &mut [u8],
    transform: &mut dyn Transform,
    direction: Direction,
    split: &mut Splitter,
    shared: &Conn,
    out: &mut Vec<u8>,
) -> (u64, Option<ProxyError>) {
    transform.decrypt(data);
    split.push(data);
    out.clear();
    let handled = dispatch(direction, split, shared, out);
    transform.encrypt(out);
    handled
}

/// No transform: plaintext sessions.
struct Plain;

impl Transform for Plain {
    fn decrypt(&mut self, _: &mut [u8]) {}
    fn encrypt(&mut self, _: &mut [u8]) {}
}

/// Hands every whole packet of `split` to the hooks and appends what is to be written this way
/// to `out` (each packet's fakes of this direction, then the packet); fakes of the other way go
/// to its outbox. Returns the packets handled, and the error that stopped the split, if one did
/// (what came before it is in `out`, to be written first).
fn dispatch(
    direction: Direction,
    split: &mut Splitter,
    shared: &Conn,
    out: &mut Vec<u8>,
) -> (u64, Option<ProxyError>) {
    let me = index(direction);
    let mut s = lock(shared);
    let s = &mut *s;
    let mut n = 0;
    let mut woke = false;
    let mut error = None;
    while let Some(packet) = split.next_packet() {
        let packet = match packet {
            Ok(p) => p,
            Err(e) => {
                error = Some(ProxyError::Frame {
                    direction,
                    error: e,
                });
                break;
            }
        };
        n += 1;
        let handled = s.dispatch.handle(direction, packet);
        for (d, fake) in s.dispatch.take_sent() {
            if d == direction {
                out.extend_from_slice(&fake);
            } else {
                s.outbox[1 - me].push(fake);
                woke = true;
            }
        }
        match handled {
            Handled::Forward => out.extend_from_slice(packet),
            Handled::Replace(b) => out.extend_from_slice(&b),
            Handled::Silence => {}
        }
    }
    s.failures.extend(s.dispatch.take_failures());
    if woke {
        shared.wake(1 - me);
    }
    (n, error)
}
