//! Syzygy tables over the protocol, with the 3-4-piece tables of `../shared/data/syzygy`
//! (each test prints `SKIPPED` without them): `SyzygyPath` reports what it found, a root the
//! tables hold gets their result and `tbhits`, probes below a 5-piece root count too, and a
//! missing directory, a truncated or foreign table file and a path list with junk are each
//! refused with `info string error:` naming the problem, the engine going on without tables.

use crate::common;

use std::path::PathBuf;

use common::{bestmove_of, info_field, info_score, Engine, TIMEOUT};

/// The shared 3-4-piece tables, `None` (and `SKIPPED`) without them.
fn shared_tables() -> Option<PathBuf> {
    cutoff::testdata::shared_data("syzygy")
}

/// A chess engine past its `uci` handshake.
fn chess_engine() -> Engine {
    let mut engine = Engine::game("chess");
    engine.send("uci");
    engine.read_until("uciok", TIMEOUT);
    engine
}

/// Searches `fen` to `depth`; returns the last `info depth` line and the best move.
fn search(engine: &mut Engine, fen: &str, depth: u32) -> (String, String) {
    engine.send(&format!("position fen {fen}"));
    engine.send(&format!("go depth {depth}"));
    let lines = engine.read_until("bestmove", TIMEOUT);
    let info = lines
        .iter()
        .rfind(|l| l.starts_with("info depth"))
        .cloned()
        .unwrap_or_default();
    let best = bestmove_of(lines.last().unwrap()).expect("a move");
    (info, best)
}

/// `info string` lines answering a `setoption` of `SyzygyPath`.
fn set_path(engine: &mut Engine, path: &str) -> String {
    engine.send(&format!("setoption name SyzygyPath value {path}"));
    engine.expect("info string")
}

/// A fresh temporary directory holding copies of the shared tables.
fn copied_tables(shared: &PathBuf, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cutoff-syzygy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for entry in std::fs::read_dir(shared).expect("tables") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "rtbw" || e == "rtbz") {
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).expect("copy");
        }
    }
    dir
}

#[test]
fn tables_decide_the_root_and_count_their_hits() {
    let Some(tables) = shared_tables() else {
        return;
    };
    let mut engine = chess_engine();
    let note = set_path(&mut engine, tables.to_str().unwrap());
    assert!(
        note.contains("SyzygyPath: 35 WDL and 35 DTZ tables, up to 4 pieces"),
        "{note}"
    );
    // KRvK, White to move: won; KPvK with Black to move: drawn; Black's KvKQ...: lost.
    for (fen, sign) in [
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 1),
        ("8/8/8/4k3/8/8/3KP3/8 b - - 0 1", 0),
        ("8/8/8/4k3/8/2Q5/3KP3/8 b - - 0 1", -1),
    ] {
        let (info, _) = search(&mut engine, fen, 6);
        let (kind, value) = info_score(&info).expect("a score");
        assert_eq!(value.signum(), sign, "{fen}: {info}");
        if kind == "cp" && sign != 0 {
            assert_eq!(value.abs(), 31871, "{fen}: {info}");
        }
        let hits: u64 = info_field(&info, "tbhits")
            .expect("tbhits")
            .parse()
            .unwrap();
        assert!(hits > 0, "{info}");
    }
    // Five pieces: the root is not in the tables, the captures below it are.
    let (info, _) = search(&mut engine, "4k3/8/8/3p4/8/8/3PP3/4K3 w - - 0 1", 6);
    let hits: u64 = info_field(&info, "tbhits")
        .expect("tbhits")
        .parse()
        .unwrap();
    assert!(hits > 0, "{info}");
    // `<empty>` closes them: no more hits.
    let note = set_path(&mut engine, "<empty>");
    assert!(note.contains("no endgame tables"), "{note}");
    let (info, _) = search(&mut engine, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 4);
    assert!(info_field(&info, "tbhits").is_none(), "{info}");
}

#[test]
fn bad_paths_are_refused_and_the_engine_goes_on_without_tables() {
    let Some(tables) = shared_tables() else {
        return;
    };
    let shared = tables.to_str().unwrap().to_string();
    let truncated = copied_tables(&tables, "truncated");
    let file = truncated.join("KRvK.rtbw");
    let size = std::fs::metadata(&file).unwrap().len();
    std::fs::write(&file, &std::fs::read(&file).unwrap()[..size as usize / 2]).unwrap();
    let foreign = copied_tables(&tables, "foreign");
    std::fs::write(foreign.join("KQvK.rtbz"), vec![7u8; 64 * 10 + 16]).unwrap();
    let cases = [
        (
            format!("/nonexistent/tables:{shared}"),
            "directory '/nonexistent/tables' cannot be read",
        ),
        (truncated.display().to_string(), "KRvK.rtbw' is truncated"),
        (
            foreign.display().to_string(),
            "KQvK.rtbz' is not a Syzygy table",
        ),
        (
            format!("::{shared}:junk dir::"),
            "directory 'junk dir' cannot be read",
        ),
        ("/tmp/..".to_string(), "no Syzygy table"),
    ];
    let mut engine = chess_engine();
    for (path, problem) in cases {
        // Tables in use are closed by a refused path too.
        let note = set_path(&mut engine, &shared);
        assert!(note.contains("35 WDL"), "{note}");
        let error = set_path(&mut engine, &path);
        assert!(
            error.starts_with("info string error: SyzygyPath refused:")
                && error.contains(problem)
                && error.ends_with("going on without endgame tables"),
            "{path}: {error}"
        );
        let (info, best) = search(&mut engine, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", 4);
        assert!(info_field(&info, "tbhits").is_none(), "{path}: {info}");
        assert!(!best.is_empty());
    }
    let _ = std::fs::remove_dir_all(truncated);
    let _ = std::fs::remove_dir_all(foreign);
    // Not a chess option elsewhere.
    let mut engine = Engine::game("connect4");
    engine.send("uci");
    engine.read_until("uciok", TIMEOUT);
    engine.send(&format!("setoption name SyzygyPath value {shared}"));
    let error = engine.expect("info string");
    assert!(error.contains("not available for connect4"), "{error}");
}
