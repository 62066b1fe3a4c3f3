//! `cutoff match` end to end: short cutoff-vs-cutoff matches whose counts must add up, and
//! misbehaving engines (tests/engines/misbehaving.py) that must forfeit with the right
//! reason. Every run has a hard timeout, so a hanging runner fails instead of hanging.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

const CUTOFF: &str = env!("CARGO_BIN_EXE_cutoff");

/// A scratch file path unique to a test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cutoff-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `cutoff match ARGS`, killing it after `limit`; returns exit code and stdout.
fn run_match(args: &[&str], limit: Duration) -> (i32, String) {
    let mut child = Command::new(CUTOFF)
        .arg("match")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cutoff starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout).to_string();
            return (status.code().unwrap_or(-1), stdout);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("cutoff match {args:?} did not finish within {limit:?}");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

fn read_json(path: &PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

#[test]
fn connect4_match_counts_add_up() {
    let book = scratch("c4book.txt");
    std::fs::write(&book, "# two openings\n4453\n3 4\n").unwrap();
    let (json, pgn, record) = (scratch("c4.json"), scratch("c4.pgn"), scratch("c4.txt"));
    let game_args = "--game connect4";
    let (code, out) = run_match(
        &[
            "-game",
            "connect4",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=deep",
            "depth=4",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=shallow",
            "depth=1",
            "-each",
            &format!("args={game_args}"),
            "proto=ugi",
            "option.Hash=1",
            "-rounds",
            "3",
            "-repeat",
            "-concurrency",
            "2",
            "-openings",
            &format!("file={}", book.display()),
            "format=moves",
            "order=random",
            "-srand",
            "3",
            "-jsonout",
            &format!("file={}", json.display()),
            "-pgnout",
            &format!("file={}", pgn.display()),
            "-recordout",
            &format!("file={}", record.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Match completed after 6 games"), "{out}");
    let v = read_json(&json);
    let p = &v["pairings"][0];
    let wdl = count(&p["wdl"]["wins"]) + count(&p["wdl"]["draws"]) + count(&p["wdl"]["losses"]);
    assert_eq!(wdl, 6);
    let pairs: u64 = p["penta"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(count)
        .sum();
    assert_eq!(pairs, 3);
    assert_eq!(v["games"].as_array().unwrap().len(), 6);
    assert_eq!(v["end"], "completed");
    let pgn = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 6);
    assert_eq!(pgn.matches("{book}").count() % 2, 0);
    assert_eq!(std::fs::read_to_string(&record).unwrap().lines().count(), 6);

    // `cutoff match-stats` pools the log, the PGN and the results of the same match:
    // three times the counts, printed and written as results.
    let log = scratch("c4.log");
    std::fs::write(&log, &out).unwrap();
    let (pgn_path, pooled_json) = (scratch("c4.pgn"), scratch("c4-pooled.json"));
    let pooled = Command::new(CUTOFF)
        .arg("match-stats")
        .args([&log, &pgn_path, &json])
        .arg("--json")
        .arg(&pooled_json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&pooled.stdout);
    assert!(pooled.status.success(), "{text}");
    assert!(
        text.starts_with("Results of deep vs shallow (3 files pooled):"),
        "{text}"
    );
    let (wins, draws, losses) = (&p["wdl"]["wins"], &p["wdl"]["draws"], &p["wdl"]["losses"]);
    let games = format!(
        "Games: 18, Wins: {}, Losses: {}, Draws: {}",
        3 * count(wins),
        3 * count(losses),
        3 * count(draws)
    );
    assert!(text.contains(&games), "{text}");
    let penta: Vec<u64> = p["penta"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| 3 * count(c))
        .collect();
    let shown: Vec<String> = penta.iter().map(u64::to_string).collect();
    let ptnml = format!("Ptnml(0-2): [{}]", shown.join(", "));
    assert!(text.contains(&ptnml), "{text}");
    let pooled = read_json(&pooled_json);
    assert_eq!(pooled["game"], "connect4");
    assert_eq!(
        pooled["pairings"][0]["penta"]["counts"],
        serde_json::json!(penta)
    );
    assert_eq!(pooled["pairings"][0]["wdl"]["wins"], 3 * count(wins));
}

#[test]
fn tictactoe_perfect_play_draws() {
    let json = scratch("ttt.json");
    let (code, out) = run_match(
        &[
            "-game",
            "tictactoe",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=a",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=b",
            "proto=uci",
            "-each",
            "args=--game tictactoe",
            "depth=9",
            "proto=ugi",
            "-rounds",
            "2",
            "-games",
            "2",
            "-sprt",
            "elo0=0",
            "elo1=10",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    assert_eq!(count(&v["pairings"][0]["wdl"]["draws"]), 4);
    assert_eq!(v["pairings"][0]["penta"]["counts"][2], 2);
    assert_eq!(v["sprt"]["decision"], "continue");
    assert!(out.contains("SPRT"), "{out}");
}

/// The engine `misbehaving.py MODE` against cutoff, one game pair at 0.3 s + 0.01 s.
fn forfeit_case(mode: &str, termination: &str, reason: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/misbehaving.py");
    let json = scratch(&format!("{mode}.json"));
    let (code, out) = run_match(
        &[
            "-game",
            "connect4",
            "-engine",
            &format!("cmd={script}"),
            &format!("args={mode}"),
            &format!("name={mode}"),
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game connect4",
            "name=cutoff",
            "-each",
            "tc=0.3+0.01",
            "proto=ugi",
            "-rounds",
            "1",
            "-repeat",
            "-readytimeout",
            "500",
            "-jsonout",
            &format!("file={}", json.display()),
            "-quiet",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(code, 0, "{out}");
    // Under -quiet too, every forfeit is printed, with its reason.
    let printed = out.lines().filter(|l| l.starts_with("Finished game"));
    assert_eq!(printed.filter(|l| l.contains(reason)).count(), 2, "{out}");
    let v = read_json(&json);
    assert_eq!(count(&v["pairings"][0]["wdl"]["losses"]), 2, "{out}");
    for game in v["games"].as_array().unwrap() {
        let record = &game["record"];
        assert_eq!(record["termination"], termination, "{out}");
        let text = record["reason"].as_str().unwrap();
        assert!(text.starts_with(mode) && text.contains(reason), "{text}");
        assert!(
            !record["engine_tail"].as_array().unwrap().is_empty(),
            "{out}"
        );
    }
}

#[test]
fn illegal_move_forfeits() {
    forfeit_case("illegal", "illegal_move", "invalid move '9'");
}

#[test]
fn silent_engine_loses_on_time() {
    forfeit_case("silent", "time_forfeit", "loses on time");
}

#[test]
fn crash_forfeits() {
    forfeit_case("crash", "crash", "disconnected");
}

#[test]
fn slow_engine_overruns_its_clock() {
    forfeit_case("slow", "time_forfeit", "loses on time");
}

#[test]
fn missing_readyok_forfeits() {
    forfeit_case("noready", "not_ready", "isready");
}

#[test]
fn bare_bestmove_forfeits() {
    forfeit_case("malformed", "malformed_bestmove", "without a move");
}

#[test]
fn untimed_search_that_never_ends_is_cut_off() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/misbehaving.py");
    let json = scratch("untimed.json");
    let (code, out) = run_match(
        &[
            "-game",
            "connect4",
            "-engine",
            &format!("cmd={script}"),
            "args=silent",
            "name=silent",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game connect4",
            "name=cutoff",
            "-each",
            "depth=2",
            "proto=ugi",
            "-movetimeout",
            "300",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    assert!(v["games"][0]["record"]["reason"]
        .as_str()
        .unwrap()
        .contains("no bestmove within 300 ms"));
}

#[test]
fn usage_errors_exit_with_2() {
    let (code, _) = run_match(&["-engine", "cmd=x", "depth=1"], Duration::from_secs(10));
    assert_eq!(code, 2);
    let (code, _) = run_match(
        &[
            "-engine",
            "cmd=/nonexistent/engine",
            "depth=1",
            "-engine",
            "cmd=/nonexistent/b",
            "depth=1",
            "-game",
            "connect4",
        ],
        Duration::from_secs(10),
    );
    assert_eq!(code, 2);
}

#[test]
fn sprt_stops_the_match_when_decided() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/misbehaving.py");
    let json = scratch("sprt.json");
    // The weak engine loses every game: logistic LLR = n ln(0.5 / s1), s1 = score at
    // +200 Elo = 0.7597, so ln(0.5/0.7597) = -0.418 per game reaches ln(0.05/0.95) = -2.944
    // after 8 games.
    let (code, out) = run_match(
        &[
            "-game",
            "connect4",
            "-engine",
            &format!("cmd={script}"),
            "args=legal",
            "name=weak",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game connect4",
            "name=cutoff",
            "-each",
            "depth=2",
            "proto=ugi",
            "-rounds",
            "50",
            "-sprt",
            "elo0=0",
            "elo1=200",
            "model=logistic",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    assert_eq!(v["end"], "sprt_decided");
    assert_eq!(v["sprt"]["decision"], "h0");
    assert_eq!(v["games"].as_array().unwrap().len(), 8, "{out}");
    assert!(out.contains("H0 accepted"), "{out}");
}

#[test]
fn a_missing_engine_or_json_path_is_refused_before_any_game_or_file() {
    let pgn = scratch("kept.pgn");
    std::fs::write(&pgn, "an earlier match\n").unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/misbehaving.py");
    let cmd = format!("cmd={script}");
    let engines = ["-engine", &cmd, "name=a", "-engine", &cmd, "name=b"];
    let tail = ["-each", "proto=ugi", "depth=1", "-rounds", "3"];
    let pgn_out = format!("file={}", pgn.display());
    for extra in [
        vec!["-engine", "cmd=/nonexistent/engine", "name=c"],
        vec!["-engine", "cmd=no-such-engine-on-path", "name=c"],
        vec!["-jsonout", "file=/nonexistent/dir/results.json"],
    ] {
        let mut args = vec!["-game", "connect4", "-pgnout", &pgn_out];
        args.extend(engines);
        args.extend(&extra);
        args.extend(tail);
        let (code, out) = run_match(&args, Duration::from_secs(20));
        assert_eq!(code, 2, "{extra:?}: {out}");
        assert!(!out.contains("Finished game"), "{extra:?}: {out}");
        let kept = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(kept, "an earlier match\n", "{extra:?}");
    }
}

#[test]
fn interrupt_writes_partial_results() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/misbehaving.py");
    let json = scratch("interrupt.json");
    let mut runner = Command::new(CUTOFF);
    // Its own process group, signalled as a whole: what Ctrl-C at a terminal does.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut runner, 0);
    let mut child = runner
        .args([
            "match",
            "-game",
            "connect4",
            "-engine",
            &format!("cmd={script}"),
            "args=silent",
            "name=silent",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game connect4",
            "name=cutoff",
            "-each",
            "depth=2",
            "proto=ugi",
            "-movetimeout",
            "60000",
            "-rounds",
            "10",
            "-jsonout",
            &format!("file={}", json.display()),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    thread::sleep(Duration::from_millis(800));
    let status = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the runner did not stop after SIGINT");
        }
        thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(130));
    let v = read_json(&json);
    assert_eq!(v["end"], "interrupted");
    // The silent engine's game was in progress: the signal must not end it as a crash.
    assert_eq!(v["games"].as_array().unwrap().len(), 0, "{v}");
}

#[test]
fn a_game_forfeited_at_start_up_writes_its_book_moves_in_san() {
    let (book, pgn) = (scratch("san-book.txt"), scratch("san.pgn"));
    std::fs::write(&book, "e2e4 e7e5 g1f3\n").unwrap();
    let (code, out) = run_match(
        &[
            "-game",
            "chess",
            "-engine",
            "cmd=false",
            "name=dead",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=cutoff",
            "-each",
            "depth=1",
            "-rounds",
            "1",
            "-openings",
            &format!("file={}", book.display()),
            "format=moves",
            "-pgnout",
            &format!("file={}", pgn.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    let pgn = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        pgn.contains("1. e4 {book} e5 {book} 2. Nf3 {book}"),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
}

#[test]
fn chess_games_are_adjudicated_and_written_as_pgn() {
    let (json, pgn) = (scratch("chess.json"), scratch("chess.pgn"));
    // Every score counts as drawn from move 1 on: games end by draw adjudication after
    // two plies; the PGN carries SAN moves and the termination.
    let (code, out) = run_match(
        &[
            "-game",
            "chess",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=a",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=b",
            "-each",
            "depth=2",
            "proto=uci",
            "-rounds",
            "1",
            "-repeat",
            "-draw",
            "movenumber=1",
            "movecount=1",
            "score=100000",
            "-jsonout",
            &format!("file={}", json.display()),
            "-pgnout",
            &format!("file={}", pgn.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    for game in games {
        assert_eq!(game["record"]["termination"], "adjudication", "{game}");
        assert_eq!(game["record"]["moves"].as_array().unwrap().len(), 2);
    }
    let pgn = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        pgn.matches("[Termination \"adjudication\"]").count(),
        2,
        "{pgn}"
    );
    assert_eq!(pgn.matches("1/2-1/2").count(), 4, "{pgn}");
    // Moves are in standard algebraic notation, not UCI.
    assert!(!pgn.contains("e2e4"), "{pgn}");
}

#[test]
fn resign_adjudication_ends_a_lost_game() {
    let json = scratch("resign.json");
    // Queen odds: the side without a queen reports a big minus at once and resigns.
    let book = scratch("odds.epd");
    std::fs::write(
        &book,
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
    )
    .unwrap();
    let (code, out) = run_match(
        &[
            "-game",
            "chess",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=a",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=b",
            "-each",
            "depth=3",
            "proto=uci",
            "-rounds",
            "1",
            "-openings",
            &format!("file={}", book.display()),
            "format=epd",
            "-resign",
            "movecount=2",
            "score=500",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    let game = &v["games"][0]["record"];
    assert_eq!(game["termination"], "adjudication", "{game}");
    assert_eq!(game["result"], "1-0", "{game}");
}

#[test]
fn round_robin_of_three_engines_plays_every_pairing() {
    let json = scratch("rr.json");
    let mut args: Vec<String> = vec!["-game".into(), "tictactoe".into()];
    for name in ["a", "b", "c"] {
        args.extend([
            "-engine".into(),
            format!("cmd={CUTOFF}"),
            format!("name={name}"),
        ]);
    }
    args.extend(
        [
            "-each",
            "depth=2",
            "proto=ugi",
            "args=--game tictactoe",
            "-tournament",
            "roundrobin",
            "-rounds",
            "1",
            "-repeat",
            "-concurrency",
            "2",
        ]
        .map(String::from),
    );
    args.extend(["-jsonout".into(), format!("file={}", json.display())]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = run_match(&refs, Duration::from_secs(30));
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    assert_eq!(
        v["games"].as_array().unwrap().len(),
        6,
        "3 pairings x 2 games"
    );
    assert_eq!(v["pairings"].as_array().unwrap().len(), 3);
}

/// Two engines that shuffle knights from the start position: the start position comes
/// back every four plies, and the rules (FIDE, cutechess-cli, fastchess) draw only at its
/// third occurrence, after eight plies, not at the second.
#[test]
fn knight_shuffle_is_drawn_at_the_third_occurrence() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/engines/knight_shuffle.py"
    );
    let json = scratch("shuffle.json");
    let (code, out) = run_match(
        &[
            "-game",
            "chess",
            "-engine",
            &format!("cmd={script}"),
            "name=white-shuffler",
            "-engine",
            &format!("cmd={script}"),
            "name=black-shuffler",
            "-each",
            "proto=uci",
            "tc=5+0.1",
            "-rounds",
            "1",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(20),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    let record = &v["games"][0]["record"];
    assert_eq!(record["result"], "1/2-1/2", "{out}");
    assert_eq!(record["termination"], "normal", "{record}");
    assert_eq!(record["moves"].as_array().unwrap().len(), 8, "{record}");
    assert!(
        record["reason"].as_str().unwrap().contains("threefold"),
        "{record}"
    );
}

/// An Ataxx match between two cutoff instances over UGI, from the registry's book, plays
/// every game to its end by the rules (stone count or half-move clock): passes
/// (`bestmove 0000`) are moves, not forfeits.
#[test]
fn ataxx_match_plays_every_game_to_its_end() {
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../openings/ataxx.txt");
    let json = scratch("ataxx.json");
    let (code, out) = run_match(
        &[
            "-game",
            "ataxx",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=deep",
            "depth=3",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=shallow",
            "depth=2",
            "-each",
            "args=--game ataxx",
            "proto=ugi",
            "option.Hash=1",
            "-rounds",
            "4",
            "-repeat",
            "-concurrency",
            "2",
            "-openings",
            &format!("file={book}"),
            "format=moves",
            "order=random",
            "-srand",
            "3",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Match completed after 8 games"), "{out}");
    let v = read_json(&json);
    for game in v["games"].as_array().unwrap() {
        let record = &game["record"];
        assert_eq!(record["termination"], "normal", "{record}");
        let reason = record["reason"].as_str().unwrap();
        assert!(
            reason.contains("by the rules") || reason.contains("fifty-move"),
            "{record}"
        );
    }
}

/// cutoff at depth 3 against a greedy one-ply player (tests/engines/ataxx_greedy.py):
/// looking ahead must win every game of two pairs.
#[test]
fn ataxx_lookahead_beats_a_greedy_player() {
    let greedy = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/ataxx_greedy.py");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/../openings/ataxx.txt");
    let json = scratch("ataxx-greedy.json");
    let (code, out) = run_match(
        &[
            "-game",
            "ataxx",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game ataxx",
            "name=cutoff",
            "depth=3",
            "-engine",
            &format!("cmd={greedy}"),
            "name=greedy",
            "depth=1",
            "-each",
            "proto=ugi",
            "-rounds",
            "2",
            "-repeat",
            "-openings",
            &format!("file={book}"),
            "format=moves",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    assert_eq!(count(&v["pairings"][0]["wdl"]["wins"]), 4, "{out}");
}

/// An Ataxx match over UAI, as Ataxx engines speak it (`uai`/`uaiok`, `uainewgame`, black
/// `x` first with `btime`): two cutoff instances, a game pair on a fast clock, both games
/// played to their end by the rules, without a forfeit or an illegal move.
#[test]
fn ataxx_match_over_uai_plays_to_the_end() {
    let json = scratch("ataxx-uai.json");
    let (code, out) = run_match(
        &[
            "-game",
            "ataxx",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=one",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "name=two",
            "-each",
            "args=--game ataxx",
            "proto=uai",
            "tc=2+0.02",
            "option.Hash=1",
            // A loaded machine may be late in answering; the clock itself is kept exactly.
            "timemargin=1000",
            "-rounds",
            "1",
            "-repeat",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Match completed after 2 games"), "{out}");
    let v = read_json(&json);
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{out}");
    for game in games {
        let record = &game["record"];
        assert_eq!(record["termination"], "normal", "{record}");
        assert!(record["result"].is_string(), "{record}");
        let reason = record["reason"].as_str().unwrap();
        assert!(
            reason.contains("by the rules") || reason.contains("fifty-move"),
            "{record}"
        );
    }
}

/// The fake Gomocup engine (tests/engines/gomocup_fake.py).
const GOMOCUP_FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/engines/gomocup_fake.py");

/// One game pair of gomoku from `opening`: the fake Gomocup engine in `mode` (at 2 s +
/// 0.05 s, logging what it receives to `log`) against cutoff at depth 2; returns the
/// runner's output and the JSON results.
fn gomocup_pair(mode: &str, opening: &str, log: &PathBuf) -> (String, Value) {
    let (book, json) = (
        scratch(&format!("gc-{mode}.txt")),
        scratch(&format!("gc-{mode}.json")),
    );
    std::fs::write(&book, format!("# one opening\n{opening}\n")).unwrap();
    let _ = std::fs::remove_file(log);
    let (code, out) = run_match(
        &[
            "-game",
            "gomoku",
            "-engine",
            &format!("cmd={GOMOCUP_FAKE}"),
            &format!("args={mode} {}", log.display()),
            &format!("name={mode}"),
            "proto=gomocup",
            "tc=2+0.05",
            "option.max_memory=1000000",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game gomoku",
            "name=cutoff",
            "proto=ugi",
            "depth=2",
            "-rounds",
            "1",
            "-repeat",
            "-readytimeout",
            "2000",
            "-openings",
            &format!("file={}", book.display()),
            "format=moves",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(90),
    );
    assert_eq!(code, 0, "{out}");
    (out, read_json(&json))
}

#[test]
fn gomocup_engines_play_whole_games() {
    let log = scratch("gomocup-legal.log");
    let (out, v) = gomocup_pair("legal", "h8 g9 j7", &log);
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{out}");
    for game in games {
        let record = &game["record"];
        assert_eq!(record["termination"], "normal", "{record}");
        assert!(
            record["reason"].as_str().unwrap().contains("by the rules"),
            "{record}"
        );
    }
    // The fake refuses (with ERROR, a forfeit) any stone it cannot place, so two normal
    // games mean the runner kept its board right. Here is what it was told.
    let said = std::fs::read_to_string(&log).unwrap();
    for line in [
        "ABOUT",
        "START 15",
        "INFO rule 0",
        "INFO game_type 1",
        "INFO timeout_match 2000",
        "INFO time_left 2000",
        "INFO max_memory 1000000",
        "BOARD",
        "7,7,",
        "DONE",
        "TURN ",
        "END",
    ] {
        assert!(said.contains(line), "'{line}' not sent:\n{said}");
    }
    // The default max_memory is not sent when the options give one.
    assert!(!said.contains("INFO max_memory 0"), "{said}");
}

/// The fake Gomocup engine in `mode` must forfeit both games of a pair, as `termination`,
/// with `reason` in the record.
fn gomocup_forfeit(mode: &str, termination: &str, reason: &str) {
    let log = scratch(&format!("gomocup-{mode}.log"));
    let (out, v) = gomocup_pair(mode, "h8 h9", &log);
    assert_eq!(count(&v["pairings"][0]["wdl"]["losses"]), 2, "{out}");
    for game in v["games"].as_array().unwrap() {
        let record = &game["record"];
        assert_eq!(record["termination"], termination, "{out}");
        let text = record["reason"].as_str().unwrap();
        assert!(text.starts_with(mode) && text.contains(reason), "{text}");
    }
}

#[test]
fn gomocup_bad_replies_forfeit() {
    gomocup_forfeit("occupied", "illegal_move", "illegal move");
    gomocup_forfeit("offboard", "illegal_move", "no cell of the 15x15 board");
    gomocup_forfeit(
        "error",
        "malformed_bestmove",
        "answered 'ERROR I will not play'",
    );
    gomocup_forfeit("crash", "crash", "disconnected");
}

#[test]
fn gomocup_engines_play_only_five_in_a_row() {
    for game in ["chess", "connect4", "tictactoe"] {
        let (code, _) = run_match(
            &[
                "-game",
                game,
                "-engine",
                &format!("cmd={GOMOCUP_FAKE}"),
                "proto=gomocup",
                "-engine",
                &format!("cmd={CUTOFF}"),
                "proto=ugi",
                "-each",
                "depth=1",
            ],
            Duration::from_secs(10),
        );
        assert_eq!(code, 2, "{game}");
    }
}

#[test]
fn cutoff_plays_rapfi_over_gomocup() {
    let rapfi = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/tools/gomoku/rapfi"
    );
    let rapfi = std::path::Path::new(rapfi).to_path_buf();
    if !rapfi.exists() {
        println!("SKIPPED: Rapfi not found (it lives in ../shared/tools/gomoku)");
        return;
    }
    let (book, json) = (scratch("rapfi-book.txt"), scratch("rapfi.json"));
    std::fs::write(&book, "h8 h9 j7\n").unwrap();
    let (code, out) = run_match(
        &[
            "-game",
            "gomoku",
            "-engine",
            &format!("cmd={}", rapfi.display()),
            "name=rapfi",
            "proto=gomocup",
            "-engine",
            &format!("cmd={CUTOFF}"),
            "args=--game gomoku",
            "name=cutoff",
            "proto=ugi",
            "option.Hash=1",
            "-each",
            "tc=3+0.05",
            // A loaded machine may be late in answering; the clock itself is kept exactly.
            "timemargin=1000",
            "-rounds",
            "1",
            "-repeat",
            "-openings",
            &format!("file={}", book.display()),
            "format=moves",
            "-jsonout",
            &format!("file={}", json.display()),
        ],
        Duration::from_secs(120),
    );
    assert_eq!(code, 0, "{out}");
    let v = read_json(&json);
    for game in v["games"].as_array().unwrap() {
        let record = &game["record"];
        assert_eq!(record["termination"], "normal", "{record}");
        let moves = record["moves"].as_array().unwrap();
        assert!(moves.len() >= 5, "{record}");
    }
}
