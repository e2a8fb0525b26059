//! Serving a proxy for the tests and benches that drive it over loopback: in a thread of its own,
//! on a current-thread tokio runtime, from a listener bound beforehand (so the caller knows the
//! address before the thread starts).

use def_runtime::tera::proxy::Proxy;

/// Serves `proxy` on `listener` (non-blocking) in a new thread, until the process ends.
pub fn serve_in_thread(proxy: Proxy, listener: std::net::TcpListener) {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(listener).unwrap();
            proxy.serve(l).await
        })
    });
}
