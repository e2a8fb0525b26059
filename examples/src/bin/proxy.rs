//! A TERA proxy between a fake client and a fake server, all on 127.0.0.1 (`def_examples::proxy`):
//! `C_CHAT` from the client is logged as JSON, `S_ITEMLIST` from the server has its `money`
//! doubled in place, everything else passes through untouched. Prints the log and what each side
//! received.
//!
//! `cargo run -p def-examples --bin proxy`

use def_examples::proxy::{peer, serve_one, traffic};
use tokio::net::{TcpListener, TcpStream};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?
        .block_on(run())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let server = TcpListener::bind("127.0.0.1:0").await?;
    let proxy = TcpListener::bind("127.0.0.1:0").await?;
    let (server_addr, proxy_addr) = (server.local_addr()?, proxy.local_addr()?);
    let (to_client, to_server) = (traffic::from_server(), traffic::from_client());

    let fake_server = tokio::spawn({
        let to_client = to_client.clone();
        async move {
            let (stream, _) = server.accept().await?;
            peer(stream, to_client, 7).await
        }
    });
    let fake_client = tokio::spawn({
        let to_server = to_server.clone();
        async move {
            let stream = TcpStream::connect(proxy_addr).await?;
            peer(stream, to_server, 5).await
        }
    });
    let report = serve_one(&proxy, server_addr).await?;
    let (server_got, client_got) = (fake_server.await??, fake_client.await??);

    for line in &report.logged {
        println!("logged: {line}");
    }
    println!(
        "forwarded {} packets to the server, {} to the client; {} S_ITEMLIST patched",
        report.forwarded.0, report.forwarded.1, report.patched
    );
    println!(
        "server received {} bytes, the same as the client sent: {}",
        server_got.len(),
        server_got == to_server
    );
    let changed = client_got
        .iter()
        .zip(&to_client)
        .filter(|(a, b)| a != b)
        .count();
    println!(
        "client received {} bytes of the server's {}; bytes changed: {changed}",
        client_got.len(),
        to_client.len()
    );
    Ok(())
}
