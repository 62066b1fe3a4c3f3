//! The Gomocup protocol over the real binary: detection from the first line, whole games
//! with the engine on either side, `BOARD`, `TAKEBACK`, the clock, Yixin Board's commands
//! under renju, and every bad input answered by `ERROR` with the last good state kept.

use crate::common;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use common::{Engine, TIMEOUT};

/// A move reply: `x,y`.
fn parse_move(line: &str) -> Option<(u32, u32)> {
    let (x, y) = line.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

/// Reads past `MESSAGE`/`DEBUG` lines to the engine's next answer.
fn answer(engine: &mut Engine) -> String {
    loop {
        let line = engine
            .read_line(TIMEOUT)
            .unwrap_or_else(|| panic!("no answer; transcript:\n{}", engine.transcript.join("\n")));
        if !line.starts_with("MESSAGE") && !line.starts_with("DEBUG") {
            return line;
        }
    }
}

/// Reads the engine's move.
fn engine_move(engine: &mut Engine) -> (u32, u32) {
    let line = answer(engine);
    parse_move(&line).unwrap_or_else(|| {
        panic!(
            "'{line}' is no move; transcript:\n{}",
            engine.transcript.join("\n")
        )
    })
}

/// Sends `ABOUT` and returns the lines before its answer (a Gomocup engine's `isready`).
fn sync(engine: &mut Engine) -> Vec<String> {
    engine.send("ABOUT");
    let mut lines = engine.read_until("name=\"cutoff\"", TIMEOUT);
    lines.pop();
    lines
}

/// A Gomocup engine started with no arguments, after `START size` and a short turn.
fn started(size: u32) -> Engine {
    let mut engine = Engine::start(&[]);
    engine.send(&format!("START {size}"));
    assert_eq!(answer(&mut engine), "OK");
    engine.send("INFO timeout_turn 200");
    engine
}

/// Whether `stones` hold five in a row through `last`.
fn five_through(stones: &HashSet<(i32, i32)>, last: (i32, i32)) -> bool {
    [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
        let run = |sign: i32| {
            (1..5)
                .take_while(|i| stones.contains(&(last.0 + sign * i * dx, last.1 + sign * i * dy)))
                .count()
        };
        1 + run(1) + run(-1) >= 5
    })
}

/// Plays a whole game on a 9x9 board against a fixed sequence of cells (the first empty
/// one in a scrambled order); checks every engine move is on an empty cell. Returns who
/// made five: `Some(true)` the engine.
fn whole_game(engine_first: bool) -> Option<bool> {
    const SIZE: u32 = 9;
    let mut engine = started(SIZE);
    let mut taken = HashSet::new();
    let mut sides = [HashSet::new(), HashSet::new()]; // engine, opponent
    let mut order = (0..SIZE * SIZE).map(|i| (i * 37 + 11) % (SIZE * SIZE));
    engine.send(if engine_first { "BEGIN" } else { "TURN 0,0" });
    if !engine_first {
        taken.insert((0, 0));
        sides[1].insert((0, 0));
    }
    while taken.len() < (SIZE * SIZE) as usize {
        let (x, y) = engine_move(&mut engine);
        assert!(
            x < SIZE && y < SIZE && taken.insert((x, y)),
            "bad move {x},{y}"
        );
        let cell = (x as i32, y as i32);
        sides[0].insert(cell);
        if five_through(&sides[0], cell) {
            return Some(true);
        }
        let reply = order.find(|i| !taken.contains(&(i % SIZE, i / SIZE)))?;
        let (x, y) = (reply % SIZE, reply / SIZE);
        taken.insert((x, y));
        let cell = (x as i32, y as i32);
        sides[1].insert(cell);
        if five_through(&sides[1], cell) {
            return Some(false);
        }
        engine.send(&format!("TURN {x},{y}"));
    }
    None
}

#[test]
fn whole_games_with_the_engine_first_and_second() {
    assert_eq!(whole_game(true), Some(true));
    assert_eq!(whole_game(false), Some(true));
}

#[test]
fn detected_from_the_first_command_in_any_case_and_forced_by_the_flag() {
    for first in ["start 15", "RECTSTART 15,15"] {
        let mut engine = Engine::start(&[]);
        engine.send(first);
        assert_eq!(answer(&mut engine), "OK", "{first}");
    }
    let mut engine = Engine::start(&[]);
    engine.send("INFO timeout_turn 300");
    engine.send("ABOUT");
    let about = answer(&mut engine);
    assert!(about.starts_with("name=\"cutoff\", version=\""), "{about}");
    assert!(
        about.contains("author=\"") && about.contains("country=\""),
        "{about}"
    );
    // Forced: the first line is no detection word, and the game need not be gomoku.
    let mut engine = Engine::start(&["--protocol", "gomocup", "--game", "chess"]);
    engine.send("BEGIN");
    assert!(answer(&mut engine).starts_with("ERROR"));
    engine.send("START 15");
    assert_eq!(answer(&mut engine), "OK");
    // UCI still starts by default.
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    engine.expect("uciok");
}

#[test]
fn board_restores_a_position_and_the_engine_completes_its_five() {
    let mut engine = started(15);
    // Own stones on row 3 at x = 2..5, open at both ends; the opponent's elsewhere.
    engine.send("BOARD");
    for line in [
        "2,3,1", "10,10,2", "3,3,1", "10,11,2", "4,3,1", "0,14,2", "5,3,1", "14,0,2",
    ] {
        engine.send(line);
    }
    engine.send("DONE");
    let (x, y) = engine_move(&mut engine);
    assert!((x, y) == (1, 3) || (x, y) == (6, 3), "{x},{y}");
    // Opponent to have opened: one stone more of theirs; a vertical four to block at
    // x = 7, y = 5..8, open at y = 4 and y = 9... the engine blocks or wins itself.
    engine.send("RESTART");
    assert_eq!(answer(&mut engine), "OK");
    engine.send("BOARD");
    for line in [
        "7,5,2", "0,0,1", "7,6,2", "14,14,1", "7,7,2", "0,14,1", "12,3,2",
    ] {
        engine.send(line);
    }
    engine.send("DONE");
    let (x, y) = engine_move(&mut engine);
    assert!(
        x == 7 && (y == 4 || y == 8),
        "the open three is blocked: {x},{y}"
    );
}

/// The stone on `x`, `y` (rows from the top) of a full 15x15 board without a five: pairs of
/// each colour along a row, shifted by one pair a row; but h8 (x 7, y 7) is empty, Black's
/// overline point between e8-g8 and i8-j8 (d8 and k8 White), and a1 and b1 are White to even
/// the counts. `x` Black, `o` White, `.` empty.
fn all_forbidden_for_black(x: usize, y: usize) -> char {
    let rank = 14 - y;
    match (x, rank) {
        (7, 7) => '.',
        (3 | 10, 7) | (0 | 1, 0) => 'o',
        (4..=9, 7) => 'x',
        _ if (x / 2 + rank) % 2 == 0 => 'x',
        _ => 'o',
    }
}

#[test]
fn renju_black_left_only_forbidden_cells_answers_a_move_at_once() {
    // The engine is Black with a15 (x 0, its own cell in the pattern) and c15 (x 2,
    // White's) empty too: whichever it takes, White's TURN on the other leaves it h8.
    let mut engine = started(15);
    engine.send("INFO rule 4");
    engine.send("BOARD");
    for y in 0..15 {
        for x in 0..15 {
            let field = match all_forbidden_for_black(x, y) {
                _ if y == 0 && (x == 0 || x == 2) => continue,
                'x' => 1,
                'o' => 2,
                _ => continue,
            };
            engine.send(&format!("{x},{y},{field}"));
        }
    }
    engine.send("DONE");
    let (x, y) = engine_move(&mut engine);
    assert!(y == 0 && (x == 0 || x == 2), "{x},{y}");
    engine.send(&format!("TURN {},0", 2 - x));
    let lines = engine.read_until("7,7", TIMEOUT);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("MESSAGE") && l.contains("forbidden")),
        "{lines:?}"
    );
    assert!(sync(&mut engine).is_empty(), "no ERROR after it");
}

#[test]
fn takeback_undoes_the_last_moves() {
    let mut engine = started(15);
    engine.send("BEGIN");
    let (ax, ay) = engine_move(&mut engine);
    let (tx, ty) = if (ax, ay) == (0, 0) { (1, 1) } else { (0, 0) };
    engine.send(&format!("TURN {tx},{ty}"));
    let (bx, by) = engine_move(&mut engine);
    // Not the last move: refused.
    engine.send(&format!("TAKEBACK {ax},{ay}"));
    assert!(answer(&mut engine).starts_with("ERROR"));
    for (x, y) in [(bx, by), (tx, ty)] {
        engine.send(&format!("TAKEBACK {x},{y}"));
        assert_eq!(answer(&mut engine), "OK");
    }
    // The opponent's cell is free again, the engine's first stone is not.
    engine.send(&format!("TURN {tx},{ty}"));
    engine_move(&mut engine);
    engine.send(&format!("TURN {ax},{ay}"));
    assert!(answer(&mut engine).starts_with("ERROR"));
}

/// Sends `lines` and expects one `ERROR` line in answer, and nothing else.
fn refused(engine: &mut Engine, lines: &[&str]) {
    for line in lines {
        engine.send(line);
    }
    let answered = sync(engine);
    assert!(
        answered.len() == 1 && answered[0].starts_with("ERROR "),
        "{lines:?} got {answered:?}"
    );
}

#[test]
fn bad_input_is_refused_and_the_state_kept() {
    let mut engine = Engine::start(&["--protocol", "gomocup"]);
    refused(&mut engine, &["TURN 7,7"]);
    refused(&mut engine, &["BEGIN"]);
    refused(&mut engine, &["BOARD", "7,7,1", "DONE"]);
    refused(&mut engine, &["RESTART"]);
    for bad in [
        "START 4",
        "START 40",
        "START x",
        "START",
        "START -15",
        "RECTSTART 15,20",
    ] {
        refused(&mut engine, &[bad]);
    }
    engine.send("START 15");
    assert_eq!(answer(&mut engine), "OK");
    engine.send("INFO timeout_turn 200");
    engine.send("TURN 7,7");
    let mine = engine_move(&mut engine);
    for bad in [
        "TURN 15,0",
        "TURN 0,15",
        "TURN 7,7",
        "TURN 7",
        "TURN a,b",
        "TURN -1,2",
    ] {
        refused(&mut engine, &[bad]);
    }
    refused(&mut engine, &[&format!("TURN {},{}", mine.0, mine.1)]);
    refused(&mut engine, &["BEGIN"]);
    refused(&mut engine, &["BOARD", "1,1,1", "1,1,2", "2,2,2", "DONE"]);
    refused(&mut engine, &["BOARD", "1,1,3", "2,2,2", "DONE"]);
    refused(&mut engine, &["BOARD", "junk", "DONE"]);
    refused(&mut engine, &["BOARD", "1,1,1", "2,2,1", "3,3,2", "DONE"]);
    refused(&mut engine, &["BOARD", "16,1,1", "DONE"]);
    refused(&mut engine, &["INFO timeout_turn soon"]);
    refused(&mut engine, &["INFO rule 8"]);
    // After a refused rule the engine does not move.
    refused(&mut engine, &["TURN 0,0"]);
    engine.send("INFO rule 0");
    // A five by the opponent ends the game: a BOARD with one, or a TURN that makes one.
    refused(
        &mut engine,
        &[
            "BOARD", "0,0,2", "5,5,1", "1,0,2", "5,6,1", "2,0,2", "5,7,1", "3,0,2", "6,9,1",
            "4,0,2", "DONE",
        ],
    );
    engine.send("UNHEARD 1");
    assert!(answer(&mut engine).starts_with("UNKNOWN"));
    // The last good state: 7,7 and the engine's reply are on the board.
    engine.send("TAKEBACK 7,7");
    assert!(answer(&mut engine).starts_with("ERROR"));
    engine.send(&format!("TAKEBACK {},{}", mine.0, mine.1));
    assert_eq!(answer(&mut engine), "OK");
    engine.send("TAKEBACK 7,7");
    assert_eq!(answer(&mut engine), "OK");
    // A move that ends the game is refused too: two fours of the opponent's, one for the
    // engine to block, then the other one played.
    engine.send("BOARD");
    let theirs = ["1,0", "2,0", "3,0", "4,0", "14,1", "14,2", "14,3", "14,4"];
    let own = ["0,0", "14,0", "7,7", "7,9", "9,7", "11,11", "3,12"];
    for (index, cell) in theirs.iter().enumerate() {
        engine.send(&format!("{cell},2"));
        if let Some(cell) = own.get(index) {
            engine.send(&format!("{cell},1"));
        }
    }
    engine.send("DONE");
    let block = engine_move(&mut engine);
    let other = if block == (5, 0) { (14, 5) } else { (5, 0) };
    refused(&mut engine, &[&format!("TURN {},{}", other.0, other.1)]);
    engine.send(&format!("TAKEBACK {},{}", block.0, block.1));
    assert_eq!(answer(&mut engine), "OK");
}

/// The bound a reply under a short clock must keep. The engine plans well inside the
/// clock (`timeout_turn 200` gives 120 ms); the test allows a loaded machine's delays and
/// fails only on a search that ignores the clock (the 20x20 position below takes
/// seconds in a debug build).
const REPLY_BOUND: Duration = Duration::from_millis(1000);

/// Sends `command` and returns the engine's move and how long it took.
fn timed_move(engine: &mut Engine, command: &str) -> ((u32, u32), Duration) {
    let started = Instant::now();
    engine.send(command);
    let reply = engine_move(engine);
    (reply, started.elapsed())
}

#[test]
fn a_turn_is_answered_within_timeout_turn() {
    let mut engine = Engine::start(&[]);
    engine.send("START 15");
    assert_eq!(answer(&mut engine), "OK");
    engine.send("INFO timeout_turn 200");
    engine.send("INFO timeout_match 100000");
    engine.send("INFO time_left 100000");
    for turn in ["TURN 7,7", "TURN 8,9", "TURN 2,3"] {
        let (_, took) = timed_move(&mut engine, turn);
        assert!(took < REPLY_BOUND, "{turn}: {took:?}");
    }
    // A match clock nearly spent is spent carefully too: at most a fifth of it.
    engine.send("INFO time_left 400");
    let (_, took) = timed_move(&mut engine, "TURN 12,12");
    assert!(took < REPLY_BOUND, "{took:?}");
    // YXSTOP stops a long think at once.
    engine.send("INFO timeout_turn 1000000");
    engine.send("INFO time_left 1000000");
    engine.send("TURN 1,1");
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    engine.send("YXSTOP");
    engine_move(&mut engine);
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_tactical_search_on_20x20_stops_at_timeout_turn() {
    // A middle game of cutoff against itself on the big board (slower nodes, threes and
    // fours of both sides for the quiescence's VCF lines), the engine to move.
    let mut engine = Engine::start(&[]);
    engine.send("START 20");
    assert_eq!(answer(&mut engine), "OK");
    engine.send("INFO timeout_turn 200");
    engine.send("BOARD");
    let game = [
        (10, 9),
        (12, 7),
        (10, 8),
        (10, 10),
        (9, 8),
        (11, 10),
        (9, 9),
        (12, 9),
        (8, 10),
        (7, 11),
    ];
    for (ply, (x, y)) in game.iter().enumerate() {
        engine.send(&format!("{x},{y},{}", 1 + ply % 2));
    }
    let started = Instant::now();
    engine.send("DONE");
    engine_move(&mut engine);
    let took = started.elapsed();
    assert!(took < REPLY_BOUND, "{took:?}");
    // And the reply after a move that ignores the attack (the engine wins within a few).
    let (_, took) = timed_move(&mut engine, "TURN 3,3");
    assert!(took < REPLY_BOUND, "{took:?}");
}

#[test]
fn end_exits_and_about_answers_one_line() {
    let mut engine = started(15);
    assert!(sync(&mut engine).is_empty());
    engine.send("END");
    assert!(engine
        .wait_exit(TIMEOUT)
        .is_some_and(|status| status.success()));
}

/// A Gomocup command, well formed or not, with numbers around the board's limits.
fn gomocup_command() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let coordinate = 0u32..24;
    prop_oneof![
        (3u32..25).prop_map(|n| format!("START {n}")),
        (3u32..25, 3u32..25).prop_map(|(w, h)| format!("RECTSTART {w},{h}")),
        Just("BEGIN".to_string()),
        Just("RESTART".to_string()),
        Just("YXSTOP".to_string()),
        (coordinate.clone(), coordinate.clone()).prop_map(|(x, y)| format!("TURN {x},{y}")),
        (coordinate.clone(), coordinate.clone()).prop_map(|(x, y)| format!("TAKEBACK {x},{y}")),
        proptest::collection::vec((0u32..17, 0u32..17, 0u8..4), 0..8).prop_map(|stones| {
            let lines: Vec<String> = stones
                .iter()
                .map(|(x, y, f)| format!("{x},{y},{f}"))
                .collect();
            format!("BOARD\n{}\nDONE", lines.join("\n"))
        }),
        (0usize..7, 0u64..400).prop_map(|(key, value)| {
            let keys = [
                "timeout_turn",
                "timeout_match",
                "time_left",
                "rule",
                "max_node",
            ];
            let key = keys.get(key).copied().unwrap_or("max_depth");
            format!("INFO {key} {value}")
        }),
        yixin_command(),
        "[ -~]{0,30}",
    ]
}

/// Yixin Board's commands and `INFO` keys, with the rules (renju among them) and bad stones.
fn yixin_command() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let stones = proptest::collection::vec((0u32..22, 0u32..22, 0u8..4), 0..12);
    prop_oneof![
        prop::sample::select(vec![0u32, 1, 2, 4, 4, 8]).prop_map(|r| format!("INFO rule {r}")),
        (0usize..8, -2i64..5).prop_map(|(key, value)| {
            let keys = [
                "caution_factor",
                "pondering",
                "usedatabase",
                "show_detail",
                "hash_size",
                "max_node",
                "thread_num",
            ];
            let key = keys.get(key).copied().unwrap_or("max_depth");
            format!("INFO {key} {value}")
        }),
        (
            stones.clone(),
            prop::sample::select(vec!["YXBOARD", "SWAP2BOARD"])
        )
            .prop_map(|(stones, word)| {
                let lines: Vec<String> = stones
                    .iter()
                    .map(|(x, y, f)| format!("{x},{y},{f}"))
                    .collect();
                format!("{word}\n{}\nDONE", lines.join("\n"))
            }),
        (stones, any::<bool>()).prop_map(|(cells, undo)| {
            let lines: Vec<String> = cells.iter().map(|(x, y, _)| format!("{x},{y}")).collect();
            let word = if undo { "YXBLOCKUNDO" } else { "YXBLOCK" };
            format!("{word}\n{}\nDONE", lines.join("\n"))
        }),
        (0u32..5).prop_map(|n| format!("YXNBEST {n}")),
        (-300i32..300, any::<bool>()).prop_map(|(bias, two)| {
            format!("YXBALANCE{} {bias}", if two { "TWO" } else { "ONE" })
        }),
        prop::sample::select(vec![
            "YXSHOWFORBID",
            "YXSHOWINFO",
            "YXHASHCLEAR",
            "YXBLOCKRESET",
            "YXSTOP",
        ])
        .prop_map(str::to_string),
    ]
}

/// The lines of the engine up to and including its next answer (not `MESSAGE`).
fn lines_to_answer(engine: &mut Engine) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = engine
            .read_line(TIMEOUT)
            .unwrap_or_else(|| panic!("no answer; transcript:\n{}", engine.transcript.join("\n")));
        let done = !line.starts_with("MESSAGE");
        lines.push(line);
        if done {
            return lines;
        }
    }
}

#[test]
fn a_yixin_board_session_under_renju() {
    let mut engine = started(15);
    for line in [
        "INFO rule 4",
        "INFO max_node -1",
        "INFO max_depth -1",
        "INFO caution_factor 3",
        "INFO thread_num 1",
        "INFO pondering 0",
        "INFO usedatabase 0",
        "INFO show_detail 0",
        "INFO hash_size 8192",
        "INFO checkmate 0",
        "INFO nbestsym 1",
        "YXSHOWINFO",
    ] {
        engine.send(line);
    }
    let info = sync(&mut engine);
    assert!(
        info.iter().any(|l| l == "MESSAGE INFO MAX_THREAD_NUM 256"),
        "{info:?}"
    );
    assert!(info.iter().all(|l| l.starts_with("MESSAGE")), "{info:?}");
    // Black (the engine) to move: g8 h8 i9 i10 make i8 (8,7) a double three.
    for line in [
        "YXBOARD",
        "6,7,1",
        "7,7,1",
        "8,6,1",
        "8,5,1",
        "0,0,2",
        "2,0,2",
        "4,0,2",
        "6,0,2",
        "DONE",
        "YXSHOWFORBID",
    ] {
        engine.send(line);
    }
    assert_eq!(answer(&mut engine), "FORBID 0807.");
    engine.send("TURN 8,7");
    assert!(answer(&mut engine).starts_with("ERROR TURN 8,7: illegal move"));
    // Block the cells that stop White's o.o.o.o, then the three best moves.
    for line in [
        "YXBLOCK",
        "3,0",
        "5,0",
        "DONE",
        "YXBLOCKUNDO",
        "5,0",
        "DONE",
        "YXNBEST 3",
    ] {
        engine.send(line);
    }
    let lines = lines_to_answer(&mut engine);
    let best: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("MESSAGE ("))
        .filter_map(|l| l.split(" | ").nth(2)?.split(' ').next())
        .collect();
    assert_eq!(best.len(), 3, "{lines:?}");
    assert_eq!(best.iter().collect::<HashSet<_>>().len(), 3, "{lines:?}");
    assert!(
        !best.contains(&"3,0") && !best.contains(&"8,7"),
        "{lines:?}"
    );
    assert_eq!(lines.last().map(String::as_str), Some(best[0]), "{lines:?}");
    assert!(
        lines.iter().any(|l| l == "MESSAGE REALTIME REFRESH"),
        "{lines:?}"
    );
    // The best move is on the board: White's turn, so no forbidden point is listed.
    engine.send("YXSHOWFORBID");
    assert_eq!(answer(&mut engine), "FORBID .");
    for line in ["YXBLOCKRESET", "YXHASHCLEAR", "YXBALANCEONE 0"] {
        engine.send(line);
    }
    assert!(parse_move(&answer(&mut engine)).is_some());
    engine.send("YXBALANCETWO 0");
    let two = answer(&mut engine);
    let moves: Vec<_> = two.split(' ').filter_map(parse_move).collect();
    assert_eq!(moves.len(), 2, "{two}");
    // Swap2: three stones on an empty board, then an answer on three stones.
    engine.send("INFO rule 0");
    engine.send("SWAP2BOARD");
    engine.send("DONE");
    let opening = answer(&mut engine);
    let stones: Vec<(u32, u32)> = opening.split(' ').filter_map(parse_move).collect();
    assert_eq!(stones.len(), 3, "{opening}");
    engine.send("SWAP2BOARD");
    for (index, (x, y)) in stones.iter().enumerate() {
        engine.send(&format!("{x},{y},{}", if index == 1 { 1 } else { 2 }));
    }
    engine.send("DONE");
    let choice = answer(&mut engine);
    let parts: Vec<_> = choice.split(' ').filter_map(parse_move).collect();
    assert!(
        choice == "SWAP" || parts.len() == 1 || parts.len() == 2,
        "{choice}"
    );
    let errors = engine
        .transcript
        .iter()
        .filter(|l| l.starts_with("ERROR") || l.starts_with("UNKNOWN"))
        .count();
    assert_eq!(
        errors, 1,
        "only the forbidden TURN: {:?}",
        engine.transcript
    );
    engine.send("END");
    assert!(engine.wait_exit(TIMEOUT).is_some_and(|s| s.success()));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 12, ..Default::default() })]

    #[test]
    fn random_gomocup_streams_never_stop_the_engine_answering(
        commands in proptest::collection::vec(gomocup_command(), 1..30)
    ) {
        let mut engine = Engine::start(&["--protocol", "gomocup"]);
        engine.send("INFO timeout_turn 60");
        for command in commands {
            let first = command.split_whitespace().next().unwrap_or_default();
            if first.eq_ignore_ascii_case("END") {
                continue;
            }
            engine.send(&command);
            engine.send("INFO timeout_turn 60");
            sync(&mut engine);
        }
        engine.send("END");
        proptest::prop_assert!(engine.wait_exit(TIMEOUT).is_some_and(|s| s.success()));
    }
}
