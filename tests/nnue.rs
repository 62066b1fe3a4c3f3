//! The NNUE options over the protocol: `EvalFile` and `UseNNUE` are listed for chess only,
//! the built-in net evaluates by default, `UseNNUE false` gives the hand-crafted evaluation,
//! a missing, truncated or corrupt net file is refused with `info string error:` and the
//! engine keeps its evaluation and answers; a good net changes the evaluation.

mod common;

use common::{bestmove_of, Engine, TIMEOUT};
use cutoff::games::chess::nnue::Activation;
use cutoff::games::chess::training::train::FloatNetwork;

/// A small valid net file in a fresh temporary directory.
fn net_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cutoff-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    FloatNetwork::random(32, Activation::SCReLU, 7)
        .quantise()
        .save(&path)
        .expect("net written");
    path
}

/// The `eval` line of the position after 1. e4.
fn eval_after_e4(engine: &mut Engine) -> String {
    engine.send("position startpos moves e2e4");
    engine.send("eval");
    engine.expect("info string eval")
}

/// A chess engine past its `uci` handshake.
fn chess_engine() -> Engine {
    let mut engine = Engine::game("chess");
    engine.send("uci");
    engine.read_until("uciok", TIMEOUT);
    engine
}

#[test]
fn eval_options_are_listed_for_chess_only() {
    let mut engine = Engine::game("chess");
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(lines.contains(&"option name EvalFile type string default <empty>".to_string()));
    assert!(lines.contains(&"option name UseNNUE type check default true".to_string()));
    let mut engine = Engine::game("connect4");
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(!lines
        .iter()
        .any(|l| l.contains("EvalFile") || l.contains("UseNNUE")));
    engine.send("setoption name UseNNUE value true");
    let error = engine.expect("info string error:");
    assert!(error.contains("not available for connect4"), "{error}");
}

#[test]
fn bad_net_files_are_refused_and_the_engine_goes_on() {
    let mut engine = chess_engine();
    let built_in = eval_after_e4(&mut engine);
    engine.send("setoption name UseNNUE value false");
    let hce = eval_after_e4(&mut engine);
    assert_ne!(built_in, hce);

    engine.send("setoption name EvalFile value /nonexistent/net.nnue");
    let error = engine.expect("info string error:");
    assert!(
        error.contains("EvalFile refused") && error.contains("/nonexistent/net.nnue"),
        "{error}"
    );

    let good = net_file("good.nnue");
    let bytes = std::fs::read(&good).unwrap();
    let truncated = good.with_file_name("truncated.nnue");
    std::fs::write(&truncated, &bytes[..bytes.len() - 100]).unwrap();
    engine.send(&format!(
        "setoption name EvalFile value {}",
        truncated.display()
    ));
    let error = engine.expect("info string error:");
    assert!(error.contains("bytes is not the size"), "{error}");
    let corrupt = good.with_file_name("corrupt.nnue");
    let mut garbage = bytes.clone();
    *garbage.last_mut().unwrap() = 0xff;
    std::fs::write(&corrupt, &garbage).unwrap();
    engine.send(&format!(
        "setoption name EvalFile value {}",
        corrupt.display()
    ));
    let error = engine.expect("info string error:");
    assert!(error.contains("padding"), "{error}");

    // Still the hand-crafted evaluation, still searching.
    assert_eq!(eval_after_e4(&mut engine), hce);
    engine.send("go depth 4");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());

    // A good file loads; UseNNUE switches the evaluation and back.
    engine.send(&format!("setoption name EvalFile value {}", good.display()));
    assert!(engine.expect("info string EvalFile").ends_with("loaded"));
    engine.send("setoption name UseNNUE value true");
    let nnue = eval_after_e4(&mut engine);
    assert_ne!(nnue, hce);
    assert_ne!(nnue, built_in);
    engine.send("go depth 4");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    // A bad file now leaves the good net in place.
    engine.send(&format!(
        "setoption name EvalFile value {}",
        truncated.display()
    ));
    engine.expect("info string error:");
    assert_eq!(eval_after_e4(&mut engine), nnue);
    // An empty EvalFile goes back to the built-in net; UseNNUE false to the hand-crafted.
    engine.send("setoption name EvalFile value <empty>");
    assert_eq!(eval_after_e4(&mut engine), built_in);
    engine.send("setoption name UseNNUE value false");
    assert_eq!(eval_after_e4(&mut engine), hce);
    engine.sync();
    let _ = std::fs::remove_dir_all(good.parent().unwrap());
}

#[test]
fn chess_reached_from_another_game_evaluates_with_the_built_in_net() {
    let built_in = eval_after_e4(&mut chess_engine());

    let mut engine = Engine::game("connect4");
    engine.send("ugi");
    engine.read_until("ugiok", TIMEOUT);
    engine.send("setoption name Game value chess");
    assert_eq!(eval_after_e4(&mut engine), built_in);
    engine.send("setoption name UseNNUE value false");
    assert_ne!(eval_after_e4(&mut engine), built_in);
    engine.sync();
}
