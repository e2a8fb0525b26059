//! The proxy example end to end on 127.0.0.1: what each side receives, byte for byte.
//!
//! The expected bytes come from the generated encoder (the server's `S_ITEMLIST` encoded again
//! with its money doubled), a path independent of the proxy's in-place patch through a view; the
//! expected JSON is written out by hand.

use def_examples::proxy::{Report, peer, serve_one, traffic};
use tokio::net::{TcpListener, TcpStream};

/// Runs fake server, proxy and fake client with the given chunk sizes; returns the report and
/// what the server and the client received.
async fn run(
    to_server: &[u8],
    to_client: &[u8],
    chunks: (usize, usize),
) -> (Report, Vec<u8>, Vec<u8>) {
    let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (server_addr, proxy_addr) = (server.local_addr().unwrap(), proxy.local_addr().unwrap());
    let fake_server = async {
        let (stream, _) = server.accept().await.unwrap();
        peer(stream, to_client.to_vec(), chunks.0).await.unwrap()
    };
    let fake_client = async {
        let stream = TcpStream::connect(proxy_addr).await.unwrap();
        peer(stream, to_server.to_vec(), chunks.1).await.unwrap()
    };
    let (report, server_got, client_got) =
        tokio::join!(serve_one(&proxy, server_addr), fake_server, fake_client);
    (report.unwrap(), server_got, client_got)
}

#[tokio::test(flavor = "current_thread")]
async fn hooks_log_and_patch_and_everything_else_passes_untouched() {
    let (to_server, to_client) = (traffic::from_client(), traffic::from_server());
    let expected_client = [
        traffic::unknown(&[1, 2, 3]),
        traffic::itemlist(2_000),
        traffic::chat(1, "not hooked in this direction"),
        traffic::itemlist(-14),
        traffic::unknown(&[0; 300]),
    ]
    .concat();
    let chat = def_examples::protocol::opcodes::C_CHAT;
    // Any chunking of either stream gives the same result.
    for chunks in [(1, 1), (3, 7), (64, 5), (100_000, 100_000)] {
        let (report, server_got, client_got) = run(&to_server, &to_client, chunks).await;
        assert_eq!(
            server_got, to_server,
            "{chunks:?}: the server gets the client's bytes"
        );
        assert_eq!(client_got.len(), to_client.len());
        assert_eq!(
            client_got, expected_client,
            "{chunks:?}: only the money changed"
        );
        assert_eq!(report.patched, 2);
        assert_eq!(report.forwarded, (4, 5));
        assert_eq!(
            report.logged,
            [
                r#"{"name":"C_CHAT","version":1,"data":{"channel":0,"message":"hi there"}}"#,
                r#"{"name":"C_CHAT","version":1,"data":{"channel":27,"message":"WTS épée +12"}}"#,
            ],
            "opcode {chat}"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_cut_or_bad_stream_ends_the_connection_with_an_error() {
    let server = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (server_addr, proxy_addr) = (server.local_addr().unwrap(), proxy.local_addr().unwrap());
    // The client's stream ends in the middle of a packet.
    let mut cut = traffic::chat(0, "cut");
    cut.truncate(cut.len() - 1);
    let fake_server = async {
        let (stream, _) = server.accept().await.unwrap();
        peer(stream, Vec::new(), 1).await
    };
    let fake_client = async {
        let stream = TcpStream::connect(proxy_addr).await.unwrap();
        peer(stream, cut.clone(), 4).await
    };
    let (report, _, _) = tokio::join!(serve_one(&proxy, server_addr), fake_server, fake_client);
    assert!(report.is_err(), "{report:?}");
}
