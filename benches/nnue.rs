//! NNUE inference costs per call: the incremental accumulator update (push + update + pop),
//! the output layer, and make + evaluate + unmake of a chess move with the net against the
//! same with the hand-crafted evaluation; then make + unmake without evaluating, with the
//! net (lazy accumulators: nothing computed) and on a rules-only copy (perft).
//!
//! `cargo bench --bench nnue [-- NET]`: a net file, or the built-in net.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use cozy_chess::Color;
use cutoff::games::chess::nnue::{self, Network, NnueState};
use cutoff::games::chess::{Chess, ChessVariant};
use cutoff::search::{MoveList, Rules, SearchHooks};

const CALLS: usize = 2_000_000;

/// Nanoseconds per call of `f`, the best of three runs.
fn time(mut f: impl FnMut(usize)) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            for i in 0..CALLS {
                f(i);
            }
            started.elapsed().as_nanos() as f64 / CALLS as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let net = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(path) => Network::load(std::path::Path::new(&path)).expect("a valid net file"),
        None => (*nnue::embedded().expect("the built-in net")).clone(),
    };
    let net = Arc::new(net);
    println!(
        "net: N = {}, {} output buckets, {}",
        net.hidden(),
        net.buckets(),
        net.activation()
    );
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let variant = ChessVariant {
        chess960: false,
        net: Some(Arc::clone(&net)),
        tablebases: None,
    };
    let game = Chess::from_fen(&variant, fen).expect("valid FEN");
    let mut moves = MoveList::new();
    game.generate_moves(&mut moves);
    let mut state: NnueState = nnue::new_state(Arc::clone(&net), game.board());
    let update = time(|i| {
        let mv = moves[i % moves.len()];
        state.push(nnue::changes(game.board(), mv, net.king_layout()).0);
        state.update();
        state.pop();
    });
    let bucket = nnue::board_bucket(game.board(), net.buckets());
    let output = time(|_| {
        black_box(state.evaluate(black_box(Color::White as usize), black_box(bucket)));
    });
    let mut with_net = game.clone();
    let nnue = time(|i| {
        let mv = moves[i % moves.len()];
        with_net.make_move(mv);
        black_box(with_net.evaluate_mut());
        with_net.unmake_move(mv);
    });
    let unevaluated = time(|i| {
        let mv = moves[i % moves.len()];
        with_net.make_move(mv);
        with_net.unmake_move(mv);
    });
    let mut rules_only = game.rules_only();
    let rules = time(|i| {
        let mv = moves[i % moves.len()];
        rules_only.make_move(mv);
        rules_only.unmake_move(mv);
    });
    let hand_crafted = ChessVariant {
        chess960: false,
        net: None,
        tablebases: None,
    };
    let mut plain = Chess::from_fen(&hand_crafted, fen).expect("valid FEN");
    let hce = time(|i| {
        let mv = moves[i % moves.len()];
        plain.make_move(mv);
        black_box(plain.evaluate());
        plain.unmake_move(mv);
    });
    println!("accumulator push + update + pop {update:7.1} ns");
    println!("output layer                    {output:7.1} ns");
    println!("make + evaluate + unmake        {nnue:7.1} ns with the net");
    println!("make + evaluate + unmake        {hce:7.1} ns with the HCE");
    println!("make + unmake, not evaluated    {unevaluated:7.1} ns with the net (lazy)");
    println!("make + unmake, rules only       {rules:7.1} ns (perft)");
}
