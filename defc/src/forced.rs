//! Which pairs of a bipartite graph every maximum matching contains: the claim rule of
//! `defc guess`, where the left side is a capture's opcodes, the right side message names, and
//! an edge says that the message may be the opcode's (it decodes every packet and no prior rules
//! it out). A message has one opcode and an opcode one message, so a consistent naming is a
//! matching; an opcode's message is certain exactly when every maximum matching gives it the
//! same one.
//!
//! One maximum matching is found with Hopcroft–Karp (O(E √V)); a matched pair is then in every
//! maximum matching unless an alternating path or cycle can move it (Dulmage–Mendelsohn): the
//! left vertex can reach a free right vertex, lies on an alternating cycle, or can be reached
//! from a free left vertex. All of it is linear in the edges after the matching.

use std::collections::VecDeque;

const NONE: usize = usize::MAX;

/// A maximum matching of `adj` (left vertex → its right vertices, all below `right`):
/// left → right, `NONE` where unmatched.
fn hopcroft_karp(adj: &[Vec<usize>], right: usize) -> Vec<usize> {
    let n = adj.len();
    let mut ml = vec![NONE; n];
    let mut mr = vec![NONE; right];
    let mut dist = vec![0usize; n];
    loop {
        // Layers from the free left vertices.
        let mut q = VecDeque::new();
        for (l, d) in dist.iter_mut().enumerate() {
            if ml[l] == NONE {
                *d = 0;
                q.push_back(l);
            } else {
                *d = NONE;
            }
        }
        let mut found = false;
        while let Some(l) = q.pop_front() {
            for &r in &adj[l] {
                match mr[r] {
                    NONE => found = true,
                    m if dist[m] == NONE => {
                        dist[m] = dist[l] + 1;
                        q.push_back(m);
                    }
                    _ => {}
                }
            }
        }
        if !found {
            return ml;
        }
        // Disjoint shortest augmenting paths along the layers, without recursion: `pos[l]` is
        // the next edge of `l` to try.
        let mut pos = vec![0usize; n];
        for start in 0..n {
            if ml[start] != NONE {
                continue;
            }
            let mut stack = vec![start];
            while let Some(&l) = stack.last() {
                if pos[l] == adj[l].len() {
                    dist[l] = NONE; // a dead end for this phase
                    stack.pop();
                    continue;
                }
                let r = adj[l][pos[l]];
                pos[l] += 1;
                let m = mr[r];
                if m == NONE {
                    // Augment along the stack: each left vertex takes the right vertex it tried.
                    for &x in stack.iter().rev() {
                        let y = adj[x][pos[x] - 1];
                        ml[x] = y;
                        mr[y] = x;
                    }
                    for &x in &stack {
                        dist[x] = NONE;
                    }
                    break;
                } else if dist[m] != NONE && dist[m] == dist[l] + 1 {
                    stack.push(m);
                }
            }
        }
    }
}

/// For each left vertex, the right vertex every maximum matching of `adj` gives it, if there is
/// one. `adj[l]` lists the right vertices (below `right`) left vertex `l` may take; duplicates
/// are allowed.
pub fn forced(adj: &[Vec<usize>], right: usize) -> Vec<Option<usize>> {
    let n = adj.len();
    let ml = hopcroft_karp(adj, right);
    let mut mr = vec![NONE; right];
    for (l, &r) in ml.iter().enumerate() {
        if r != NONE {
            mr[r] = l;
        }
    }
    // `l → m` when `l` could take `m`'s right vertex (an alternating step).
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut rev: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut moved = vec![false; n];
    let mut queue = VecDeque::new();
    for l in 0..n {
        for &r in &adj[l] {
            if r == ml[l] {
                continue;
            }
            match mr[r] {
                // A free right vertex: `l` can leave its own (or, unmatched, it is free anyway).
                NONE => {
                    if ml[l] != NONE && !moved[l] {
                        moved[l] = true;
                        queue.push_back(l);
                    }
                }
                m => {
                    out[l].push(m);
                    rev[m].push(l);
                }
            }
        }
    }
    // Whoever can pass its vertex down a chain that ends at a free right vertex can move.
    while let Some(l) = queue.pop_front() {
        for &p in &rev[l] {
            if !moved[p] {
                moved[p] = true;
                queue.push_back(p);
            }
        }
    }
    // A free left vertex can take any of its right vertices, and so on down the chain.
    let mut queue: VecDeque<usize> = (0..n).filter(|&l| ml[l] == NONE).collect();
    let mut seen: Vec<bool> = ml.iter().map(|&r| r == NONE).collect();
    while let Some(l) = queue.pop_front() {
        for &r in &adj[l] {
            let m = mr[r];
            if m != NONE && m != l && !seen[m] {
                seen[m] = true;
                moved[m] = true;
                queue.push_back(m);
            }
        }
    }
    // Alternating cycles: strongly connected components of more than one vertex.
    for comp in sccs(&out) {
        if comp.len() > 1 {
            for l in comp {
                moved[l] = true;
            }
        }
    }
    (0..n)
        .map(|l| (ml[l] != NONE && !moved[l]).then_some(ml[l]))
        .collect()
}

/// The strongly connected components of a directed graph (Tarjan, iterative).
fn sccs(g: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = g.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut comps = Vec::new();
    let mut next = 0;
    for s in 0..n {
        if index[s] != NONE {
            continue;
        }
        // (vertex, next edge)
        let mut call = vec![(s, 0usize)];
        index[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on[s] = true;
        while let Some(&mut (v, ref mut e)) = call.last_mut() {
            if *e < g[v].len() {
                let w = g[v][*e];
                *e += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comps.push(comp);
                }
            }
        }
    }
    comps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every matching that covers as many left vertices as possible, by brute force.
    fn maximum_matchings(adj: &[Vec<usize>], right: usize) -> Vec<Vec<Option<usize>>> {
        fn go(
            adj: &[Vec<usize>],
            l: usize,
            used: &mut Vec<bool>,
            cur: &mut Vec<Option<usize>>,
            all: &mut Vec<Vec<Option<usize>>>,
        ) {
            if l == adj.len() {
                all.push(cur.clone());
                return;
            }
            cur.push(None);
            go(adj, l + 1, used, cur, all);
            cur.pop();
            for &r in &adj[l] {
                if !used[r] {
                    used[r] = true;
                    cur.push(Some(r));
                    go(adj, l + 1, used, cur, all);
                    cur.pop();
                    used[r] = false;
                }
            }
        }
        let mut all = Vec::new();
        go(adj, 0, &mut vec![false; right], &mut Vec::new(), &mut all);
        let size = |m: &Vec<Option<usize>>| m.iter().flatten().count();
        let best = all.iter().map(size).max().unwrap_or(0);
        all.retain(|m| size(m) == best);
        all.sort();
        all.dedup();
        all
    }

    /// Small random graphs: the forced pairs are exactly those every maximum matching (found
    /// by enumerating all matchings) shares, and the matching found is maximum.
    #[test]
    fn forced_pairs_agree_with_brute_force() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rand = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..3000 {
            let left = 1 + rand(6) as usize;
            let right = 1 + rand(6) as usize;
            let adj: Vec<Vec<usize>> = (0..left)
                .map(|_| (0..rand(4)).map(|_| rand(right as u64) as usize).collect())
                .collect();
            let all = maximum_matchings(&adj, right);
            let expected: Vec<Option<usize>> = (0..left)
                .map(|l| {
                    let first = all[0][l];
                    (first.is_some() && all.iter().all(|m| m[l] == first))
                        .then_some(first)
                        .flatten()
                })
                .collect();
            let size = hopcroft_karp(&adj, right)
                .iter()
                .filter(|&&r| r != NONE)
                .count();
            assert_eq!(size, all[0].iter().flatten().count(), "{adj:?}");
            assert_eq!(forced(&adj, right), expected, "{adj:?}");
        }
    }
}
