//! The NNUE options over the protocol: `EvalFile` and `UseNNUE` are listed for chess only,
//! the built-in net evaluates by default, `UseNNUE false` gives the hand-crafted evaluation,
//! a missing, truncated or corrupt net file is refused with `info string error:` and the
//! engine keeps its evaluation and answers; a good net changes the evaluation. Ataxx takes
//! its own nets (`Ataxx147`) over UAI and refuses chess nets, chess refuses Ataxx nets over
//! UGI, and `cutoff --game ataxx bench --evalfile` is deterministic. `cutoff train` trains
//! a king-bucketed chess net validated on held-out games, which the engine then plays with.

use crate::common;

use common::{bestmove_of, run_ok as cutoff_ok, Engine, TIMEOUT};
use cutoff::games::chess::nnue::Activation;
use cutoff_training::trainer::FloatNetwork;

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

/// A random net file of `features` in a temporary directory of the game tests (apart from
/// [`net_file`]'s, which a test removes).
fn game_net_file(features: cutoff::nnue::FeatureSet, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cutoff-nnue-games-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    cutoff::nnue::random_network(features, 16, Activation::SCReLU, 11)
        .save(&path)
        .expect("net written");
    path
}

/// An `Ataxx147` net file with random weights.
fn ataxx_net_file(name: &str) -> std::path::PathBuf {
    game_net_file(cutoff::games::ataxx::nnue::ATAXX147, name)
}

/// The `eval` line of `position` in an Ataxx engine.
fn ataxx_eval(engine: &mut Engine) -> String {
    engine.send("position fen x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1 moves f2 a2");
    engine.send("eval");
    engine.expect("info string eval")
}

#[test]
fn ataxx_takes_its_own_nets_over_uai_and_refuses_others() {
    let chess_net = game_net_file(cutoff::games::chess::nnue::CHESS768, "for-ataxx.nnue");
    let ataxx_net = ataxx_net_file("ataxx.nnue");
    let mut engine = Engine::game("ataxx");
    engine.send("uai");
    let lines = engine.read_until("uaiok", TIMEOUT);
    assert!(lines.contains(&"option name EvalFile type string default <empty>".to_string()));
    assert!(lines.contains(&"option name UseNNUE type check default true".to_string()));
    let built_in = ataxx_eval(&mut engine);

    // A chess net, and an Ataxx net of a wrong size, are refused with what they are.
    engine.send(&format!(
        "setoption name EvalFile value {}",
        chess_net.display()
    ));
    let error = engine.expect("info string error:");
    assert!(
        error.contains("Chess768") && error.contains("expected one for Ataxx147"),
        "{error}"
    );
    let bytes = std::fs::read(&ataxx_net).unwrap();
    let truncated = ataxx_net.with_file_name("ataxx-truncated.nnue");
    std::fs::write(&truncated, &bytes[..bytes.len() - 64]).unwrap();
    engine.send(&format!(
        "setoption name EvalFile value {}",
        truncated.display()
    ));
    let error = engine.expect("info string error:");
    assert!(error.contains("(147 -> N)x2 -> 1"), "{error}");
    assert_eq!(ataxx_eval(&mut engine), built_in);
    engine.send("go depth 3");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.send("setoption name UseNNUE value false");
    let hce = ataxx_eval(&mut engine);
    assert_ne!(hce, built_in);

    // Its own net loads and evaluates; UseNNUE false goes back to the hand-crafted one.
    engine.send(&format!(
        "setoption name EvalFile value {}",
        ataxx_net.display()
    ));
    assert!(engine.expect("info string EvalFile").ends_with("loaded"));
    engine.send("setoption name UseNNUE value true");
    let net = ataxx_eval(&mut engine);
    assert_ne!(net, hce);
    assert_ne!(net, built_in);
    engine.send("go depth 4");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.send("setoption name UseNNUE value false");
    assert_eq!(ataxx_eval(&mut engine), hce);
    engine.sync();
}

#[test]
fn chess_refuses_an_ataxx_net_over_ugi_and_plays_on() {
    let ataxx_net = ataxx_net_file("ataxx-for-chess.nnue");
    let mut engine = Engine::game("chess");
    engine.send("ugi");
    engine.read_until("ugiok", TIMEOUT);
    let built_in = eval_after_e4(&mut engine);
    engine.send(&format!(
        "setoption name EvalFile value {}",
        ataxx_net.display()
    ));
    let error = engine.expect("info string error:");
    assert!(
        error.contains("Ataxx147") && error.contains("expected one for Chess768"),
        "{error}"
    );
    assert_eq!(eval_after_e4(&mut engine), built_in);
    engine.send("go depth 4");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    engine.sync();
}

/// The node count of the Ataxx line of `cutoff --game ataxx bench 5 <extra>`.
fn ataxx_bench_nodes(extra: &[&str]) -> u64 {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cutoff"))
        .args(["--game", "ataxx", "bench", "5"])
        .args(extra)
        .output()
        .expect("the engine binary runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find(|line| line.starts_with("info string bench ataxx "))
        .unwrap_or_else(|| panic!("no Ataxx bench line in {text}"));
    let nodes = line.split_whitespace().skip_while(|&w| w != "nodes").nth(1);
    nodes.and_then(|n| n.parse().ok()).expect("a node count")
}

#[test]
fn ataxx_bench_with_a_net_is_deterministic() {
    let net = ataxx_net_file("ataxx-bench.nnue");
    let path = net.display().to_string();
    let first = ataxx_bench_nodes(&["--evalfile", &path]);
    assert_eq!(first, ataxx_bench_nodes(&["--evalfile", &path]));
    assert_ne!(first, ataxx_bench_nodes(&[]), "the net decides the search");
    // A chess net given for Ataxx is refused: the bench does not run.
    let chess = game_net_file(cutoff::games::chess::nnue::CHESS768, "for-ataxx-bench.nnue");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_cutoff"))
        .args(["--game", "ataxx", "bench", "1", "--evalfile"])
        .arg(&chess)
        .output()
        .expect("the engine binary runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("Chess768"));
}

/// A fresh temporary directory named `name` (with the process id) holding two datagen
/// files of `game` at 300 nodes a move: `games` games from game 0 (`train.bin`) and as
/// many after them (`held-out.bin`).
fn datagen_pair(name: &str, game: &str, games: usize) -> (std::path::PathBuf, String, String) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = |name: &str| dir.join(name).display().to_string();
    let (train, held_out) = (file("train.bin"), file("held-out.bin"));
    let count = games.to_string();
    for (first, out) in [("0".to_string(), &train), (count.clone(), &held_out)] {
        cutoff_ok(&[
            "--game",
            game,
            "datagen",
            "--games",
            &count,
            "--first-game",
            &first,
            "--nodes",
            "300",
            "--format",
            "bullet",
            "--out",
            out,
        ]);
    }
    (dir, train, held_out)
}

#[test]
fn a_king_bucketed_net_trained_on_held_out_games_loads_and_plays() {
    let (dir, train, held_out) = datagen_pair("cutoff-train-cli", "chess", 4);
    let net = dir.join("kb4.nnue").display().to_string();
    let report = cutoff_ok(&[
        "train",
        "--data",
        &train,
        "--validation-data",
        &held_out,
        "--features",
        "ChessBuckets4Mirrored",
        "--hidden",
        "8",
        "--output-buckets",
        "2",
        "--epochs",
        "2",
        "--out",
        &net,
    ]);
    let header = report.lines().find(|l| l.starts_with("training ")).unwrap();
    assert!(
        header.contains("ChessBuckets4Mirrored (3072 -> 8)x2 -> 2")
            && header.contains("validated on"),
        "{report}"
    );
    // The held-out games are the validation, none of the training's.
    let positions = |path: &str| std::fs::metadata(path).unwrap().len() / 32;
    assert!(
        report.contains(&format!(
            "{} training and {} validation positions",
            positions(&train),
            positions(&held_out)
        )),
        "{report}"
    );
    // The engine takes the net and searches with it; Ataxx refuses it by name.
    let mut engine = chess_engine();
    engine.send(&format!("setoption name EvalFile value {net}"));
    assert!(engine.expect("info string EvalFile").ends_with("loaded"));
    engine.send("position startpos moves e2e4 e7e5 e1e2");
    engine.send("go depth 5");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    let mut ataxx = Engine::game("ataxx");
    ataxx.send("uai");
    ataxx.read_until("uaiok", TIMEOUT);
    ataxx.send(&format!("setoption name EvalFile value {net}"));
    let error = ataxx.expect("info string error:");
    assert!(error.contains("ChessBuckets4Mirrored"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gomoku_takes_its_own_nets_and_refuses_others() {
    use cutoff::games::gomoku::nnue::PCODE;
    use cutoff::nnue::random_network;
    let dir = std::env::temp_dir().join(format!("cutoff-gomoku-nnue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("gomoku.nnue");
    random_network(PCODE, 16, Activation::SCReLU, 3)
        .save(&good)
        .expect("net written");
    let chess = net_file("chess-for-gomoku.nnue");
    let mut engine = Engine::game("gomoku");
    engine.send("uci");
    let lines = engine.read_until("uciok", TIMEOUT);
    assert!(lines.contains(&"option name EvalFile type string default <empty>".to_string()));
    assert!(lines.contains(&"option name UseNNUE type check default true".to_string()));
    engine.send("position startpos moves h8 h9 i8");
    engine.send("eval");
    let built_in = engine.expect("info string eval");
    engine.send(&format!(
        "setoption name EvalFile value {}",
        chess.display()
    ));
    let error = engine.expect("info string error:");
    assert!(
        error.contains("expected one for GomokuPcode15 (gomoku"),
        "{error}"
    );
    engine.send(&format!("setoption name EvalFile value {}", good.display()));
    assert!(engine.expect("info string EvalFile").ends_with("loaded"));
    engine.send("setoption name UseNNUE value true");
    engine.send("position startpos moves h8 h9 i8");
    engine.send("eval");
    let netted = engine.expect("info string eval");
    assert_ne!(netted, built_in);
    engine.send("go nodes 2000");
    assert!(bestmove_of(&engine.expect("bestmove")).is_some());
    // The 20x20 entry evaluates with the built-in net too (its inputs name no cell), and
    // `UseNNUE false` goes back to the hand-set values.
    let mut twenty = Engine::game("gomoku20");
    twenty.send("uci");
    let lines = twenty.read_until("uciok", TIMEOUT);
    assert!(lines.iter().any(|l| l.contains("EvalFile")));
    twenty.send("position startpos moves k11 k10 l11");
    twenty.send("eval");
    let netted = twenty.expect("info string eval");
    twenty.send("setoption name UseNNUE value false");
    twenty.send("position startpos moves k11 k10 l11");
    twenty.send("eval");
    assert_ne!(twenty.expect("info string eval"), netted);
}

#[test]
fn a_gomoku_policy_fitted_to_datagen_games_is_written_and_junk_is_refused() {
    let (dir, train, held_out) = datagen_pair("cutoff-policy-cli", "gomoku", 3);
    let file = |name: &str| dir.join(name).display().to_string();
    let out = file("policy.bin");
    let report = cutoff_ok(&[
        "--game",
        "gomoku",
        "train-policy",
        "--data",
        &train,
        "--validation-data",
        &held_out,
        "--epochs",
        "2",
        "--out",
        &out,
    ]);
    assert!(report.contains("epoch 2: held out: "), "{report}");
    let bytes = std::fs::read(&out).expect("the policy file");
    assert!(cutoff::games::gomoku::policy::Policy::parse(&bytes).is_ok());
    // Another game's records, and a game without a policy, are refused.
    let train_policy = |game: &[&str], data: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cutoff"))
            .args(game)
            .args(["train-policy", "--data", data, "--validation-data"])
            .args([held_out.as_str(), "--out", out.as_str()])
            .output()
            .expect("the engine binary runs")
    };
    std::fs::write(file("junk.bin"), [0xffu8; 72 * 3]).unwrap();
    let junk = train_policy(&["--game", "gomoku"], &file("junk.bin"));
    assert!(!junk.status.success());
    assert!(String::from_utf8_lossy(&junk.stderr).contains("junk.bin"));
    let chess = train_policy(&[], &train);
    assert!(!chess.status.success());
    assert!(String::from_utf8_lossy(&chess.stderr).contains("gomoku's move ordering only"));
    let _ = std::fs::remove_dir_all(&dir);
}
