//! What every protocol-defs benchmark shares: where the shared data is, and criterion timing
//! the benchmark thread's CPU time. `codec` and `codec_mimalloc` reach it through `common`,
//! `proxy` by path.

use std::path::PathBuf;

use criterion::Criterion;

/// `../shared` beside the repository, or `WIRE_SHARED_DIR`.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("WIRE_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")))
}

/// Criterion measurement by the thread's CPU time.
pub struct CpuTime;

fn thread_cpu() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the pointer it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl criterion::measurement::Measurement for CpuTime {
    type Intermediate = std::time::Duration;
    type Value = std::time::Duration;
    fn start(&self) -> Self::Intermediate {
        thread_cpu()
    }
    fn end(&self, i: Self::Intermediate) -> Self::Value {
        thread_cpu() - i
    }
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value {
        *v1 + *v2
    }
    fn zero(&self) -> Self::Value {
        std::time::Duration::ZERO
    }
    fn to_f64(&self, v: &Self::Value) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn criterion::measurement::ValueFormatter {
        // Same unit as wall time (nanoseconds), so criterion's duration formatting fits.
        static WALL: criterion::measurement::WallTime = criterion::measurement::WallTime;
        criterion::measurement::Measurement::formatter(&WALL)
    }
}

/// Criterion as every benchmark here runs it: 20 samples, thread CPU time.
pub fn config() -> Criterion<CpuTime> {
    Criterion::default()
        .sample_size(20)
        .with_measurement(CpuTime)
}
