//! Criterion benchmark of TERA string decoding alone (`Reader::text_at`), the largest single
//! item in the profile of generated decoders (a third of the time over the public vectors).
//!
//! The strings imitate those of the public vectors: 0 to 12 units mostly, a few up to 32; a
//! quarter ASCII, the rest mixing ASCII with two- and three-byte characters (CJK, Hangul).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use def_runtime::Options;
// The reader generated decoders call, through their door.
use def_runtime::__private::Reader;

#[path = "../tests/support/rng.rs"]
mod rng;
use rng::Rng;

fn strings(n: usize) -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..n)
        .map(|_| {
            let len = if rng.below(25) == 0 {
                13 + rng.below(20)
            } else {
                rng.below(13)
            };
            let class = rng.below(100);
            (0..len)
                .map(|_| {
                    let pick = rng.below(10);
                    let c = if class < 26 || pick < 5 {
                        0x20 + rng.below(0x5f)
                    } else if class < 33 || pick < 6 {
                        0x80 + rng.below(0x780)
                    } else {
                        0xac00 + rng.below(0x2000)
                    };
                    char::from_u32(c as u32).unwrap()
                })
                .collect()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let all = strings(8000);
    for (name, texts) in [
        ("mixed", all.clone()),
        (
            "ascii",
            all.iter().filter(|s| s.is_ascii()).cloned().collect(),
        ),
        (
            "non-ascii",
            all.iter().filter(|s| !s.is_ascii()).cloned().collect(),
        ),
    ] {
        one(c, name, &texts);
    }
}

fn one(c: &mut Criterion, name: &str, texts: &[String]) {
    // One packet: a 4-byte header, then every string with its terminator.
    let mut packet = vec![0u8; 4];
    let mut offsets = Vec::new();
    for s in texts {
        offsets.push(packet.len());
        for u in s.encode_utf16().chain([0]) {
            packet.extend_from_slice(&u.to_le_bytes());
        }
    }
    let mut g = c.benchmark_group("tera/strings");
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut r = Reader::new(&packet, Options::new());
            let mut total = 0;
            for &at in &offsets {
                total += r.text_at(at).unwrap().len();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
