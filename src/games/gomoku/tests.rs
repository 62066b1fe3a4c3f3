//! Gomoku's rule, pattern and search tests.

use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::rng::SplitMix;
use crate::search::perft::perft;
use crate::search::score::MATE_BOUND;
use crate::search::tt::TranspositionTable;
use crate::search::Searcher;

fn play(game: &mut Gomoku, line: &str) {
    for text in line.split_whitespace() {
        let mv = game
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        game.make_move(mv);
    }
}

fn played(variant: GomokuVariant, line: &str) -> Gomoku {
    let mut game = Gomoku::start(&variant);
    play(&mut game, line);
    game
}

/// The line key of `cell` in direction `dir`, read from the board directly.
fn slow_key(game: &Gomoku, cell: usize, dir: usize) -> u16 {
    let mut key = 0;
    for step in (-4i32..=4).filter(|&s| s != 0) {
        let other = cell as isize + step as isize * game.steps[dir] as isize;
        let bits = u16::from(game.board[other as usize]);
        key |= bits << pattern::shift(step);
    }
    key
}

/// Checks every incremental table of `game` against a recount from its board.
fn check_consistent(game: &Gomoku) {
    let fresh = Gomoku::from_fen(&game.variant, &game.to_fen()).unwrap();
    assert_eq!(game.hash, fresh.hash, "{}", game.to_fen());
    let mut value = [0; 2];
    let mut counts = [[0u16; THREATS]; 2];
    for cell in game.board_cells() {
        let mut near = 0;
        for dy in -NEAR..=NEAR {
            for dx in -NEAR..=NEAR {
                let other = cell as isize + dy as isize * game.stride as isize + dx as isize;
                near += u8::from(matches!(game.board[other as usize], 1 | 2));
            }
        }
        assert_eq!(game.near[cell], near);
        for dir in 0..4 {
            assert_eq!(game.cells[cell].keys[dir], slow_key(game, cell, dir));
        }
        for player in 0..2 {
            let info = game.cells[cell].info[player];
            if game.board[cell] != EMPTY {
                assert_eq!((info.value(), info.threat), (0, 0));
                assert!(!game.net_codes() || info.code_sum == 0);
                continue;
            }
            let patterns = [0, 1, 2, 3].map(|dir| {
                let key = pattern::Perspective::of(slow_key(game, cell, dir), player);
                pattern::own_pattern(game.variant.rule, key)
            });
            let threat = Threat::of(patterns);
            assert_eq!(info.threat, threat as u8);
            assert_eq!(game.cells[cell].pairs.map(|pair| pair[player]), patterns);
            if game.net_codes() {
                assert_eq!(nnue::code_of_sum(info.code_sum), nnue::code(patterns));
            }
            value[player] += info.value();
            counts[player][threat as usize] += u16::from(threat != Threat::None);
            assert_eq!(has_bit(&game.fives[player], cell), threat == Threat::Five);
            let four = threat.is_four() && threat != Threat::Five;
            assert_eq!(has_bit(&game.fours[player], cell), four);
            // A real five is always seen as a five pattern.
            if game.five_through(cell, player) {
                assert_eq!(threat, Threat::Five);
            }
        }
    }
    assert_eq!(game.value, value);
    assert_eq!(game.threat_count, counts);
    assert_eq!(game.value, fresh.value);
}

fn has_bit(set: &[u64; SET_WORDS], cell: usize) -> bool {
    set[cell / 64] >> (cell % 64) & 1 != 0
}

/// A random position: `stones` random moves near the centre (fewer if a five ends it).
fn random_position(variant: GomokuVariant, rng: &mut SplitMix, stones: usize) -> Gomoku {
    let mut game = Gomoku::start(&variant);
    let size = usize::from(variant.size);
    let span = size.min(9);
    let low = (size - span) / 2;
    for _ in 0..stones {
        if game.outcome().is_some() {
            break;
        }
        let file = (low + rng.below(span)) as u8;
        let rank = (low + rng.below(span)) as u8;
        let cell = game.cell(file, rank).unwrap();
        if game.stone(cell).is_none() {
            game.make_move(cell);
        }
    }
    game
}

#[test]
fn variants_are_checked() {
    assert!(GomokuVariant::new(4, Rule::Freestyle).is_err());
    assert!(GomokuVariant::new(23, Rule::Freestyle).is_err());
    for size in MIN_SIZE..=MAX_SIZE {
        let variant = GomokuVariant::new(size, Rule::ExactlyFive).unwrap();
        let game = Gomoku::start(&variant);
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        assert_eq!(moves.len(), variant.cells());
        check_consistent(&game);
    }
}

#[test]
fn perft_counts_cells() {
    let game = Gomoku::start(&GomokuVariant::FREESTYLE15);
    assert_eq!(perft(&mut game.clone(), 1), 225);
    assert_eq!(perft(&mut game.clone(), 2), 225 * 224);
    let big = Gomoku::start(&GomokuVariant::FREESTYLE20);
    assert_eq!(perft(&mut big.clone(), 2), 400 * 399);
    let huge = Gomoku::start(&GomokuVariant::new(22, Rule::Freestyle).unwrap());
    assert_eq!(perft(&mut huge.clone(), 1), 484);
}

#[test]
fn fives_win_and_overlines_depend_on_the_rule() {
    // x: a1 b1 c1 d1 then f1, e1 joins them into six.
    let line = "a1 a3 b1 b3 c1 c3 d1 d5 f1 d3";
    let free = played(GomokuVariant::FREESTYLE15, line);
    let exact = played(GomokuVariant::STANDARD15, line);
    let mut free = free;
    let mut exact = exact;
    let e1 = free.parse_move("e1").unwrap();
    free.make_move(e1);
    assert_eq!(free.outcome(), Some(Outcome::Loss));
    exact.make_move(e1);
    assert_eq!(
        exact.outcome(),
        None,
        "six in a row does not win exactly-five"
    );
    // o: a3 b3 c3 d3, e3 makes five in both.
    for mut game in [
        played(GomokuVariant::FREESTYLE15, "a1 a3 b1 b3 c1 c3 h8 d3 h10"),
        played(GomokuVariant::STANDARD15, "a1 a3 b1 b3 c1 c3 h8 d3 h10"),
    ] {
        game.make_move(game.parse_move("e3").unwrap());
        assert_eq!(game.outcome(), Some(Outcome::Loss));
        let mut moves = MoveList::new();
        game.generate_moves(&mut moves);
        assert!(moves.is_empty());
        check_consistent(&game);
    }
}

#[test]
fn fives_in_every_direction_and_at_the_edges() {
    let variant = GomokuVariant::FREESTYLE20;
    // Vertical on the t file, diagonal to the corner, anti-diagonal.
    for line in [
        "t1 a20 t2 a19 t3 a18 t4 a17 t5",
        "a1 t20 b2 s20 c3 r20 d4 q20 e5",
        "a20 t1 b19 s1 c18 r1 d17 q1 e16",
        "p20 a1 q20 b1 r20 c1 s20 d1 t20",
    ] {
        let game = played(variant.clone(), line);
        assert_eq!(game.outcome(), Some(Outcome::Loss), "{line}");
        check_consistent(&game);
    }
    let four = played(variant, "t1 a20 t2 a19 t3 a18 t4 a17");
    assert_eq!(four.outcome(), None);
    let mut moves = MoveList::new();
    four.generate_search_moves(&mut moves);
    assert_eq!(moves.len(), 1, "x wins at once on t5");
    assert_eq!(four.format_move(moves[0]), "t5");
}

#[test]
fn full_board_is_a_draw() {
    // 5x5 filled in a pattern without five: columns alternate in pairs.
    let variant = GomokuVariant::new(5, Rule::Freestyle).unwrap();
    let fen = "xxoox/ooxxo/xxoox/ooxxo/xxoox o";
    let game = Gomoku::from_fen(&variant, fen);
    // 13 x and 12 o: o to move does not fit a full board of 25; x moved last.
    let game = game.unwrap();
    assert_eq!(game.outcome(), Some(Outcome::Draw));
}

#[test]
fn fen_round_trips_and_bad_input_is_refused() {
    let game = played(GomokuVariant::FREESTYLE20, "k11 l12 j10 a1 t20");
    let fen = game.to_fen();
    let back = Gomoku::from_fen(&GomokuVariant::FREESTYLE20, &fen).unwrap();
    assert_eq!(back.to_fen(), fen);
    assert_eq!(back.hash(), game.hash());
    let variant = GomokuVariant::FREESTYLE15;
    for bad in [
        "",
        "15/15 x",
        "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 o",
        "x",
    ] {
        assert!(Gomoku::from_fen(&variant, bad).is_err(), "{bad}");
    }
    let start = Gomoku::start(&variant);
    assert!(start.parse_move("p1").is_err());
    assert!(start.parse_move("a16").is_err());
    assert!(start.parse_move("a0").is_err());
    assert!(start.parse_move("h8x").is_err());
    let taken = played(variant, "h8");
    assert!(matches!(
        taken.parse_move("h8"),
        Err(GameError::IllegalMove(_))
    ));
    for file in 0..15 {
        for rank in 0..15 {
            let cell = start.cell(file, rank).unwrap();
            assert_eq!(start.parse_move(&start.format_move(cell)), Ok(cell));
        }
    }
}

#[test]
fn search_moves_block_fives_and_stay_near_stones() {
    let game = played(GomokuVariant::FREESTYLE15, "h8 a1 h9 a2 h10 b2 h11");
    assert!(game.in_check());
    let mut moves = MoveList::new();
    game.generate_search_moves(&mut moves);
    let names: Vec<String> = moves.iter().map(|&m| game.format_move(m)).collect();
    assert_eq!(names, ["h7", "h12"]);
    let quiet = played(GomokuVariant::FREESTYLE15, "h8");
    moves.clear();
    quiet.generate_search_moves(&mut moves);
    assert_eq!(moves.len(), 24);
}

/// A search of `game` to `depth` plies.
fn search(game: &Gomoku, depth: u32) -> i32 {
    let mut searcher = Searcher::new(Arc::new(TranspositionTable::new(1)));
    searcher
        .search_root(
            game,
            depth,
            -crate::search::score::INFINITY,
            crate::search::score::INFINITY,
            None,
        )
        .unwrap()
}

#[test]
fn vcf_finds_a_known_win() {
    // x has h8 h9 h10 (open three, o blocks h11) and j8 k8: four-three on the board.
    let game = played(
        GomokuVariant::FREESTYLE15,
        "h8 h11 h9 a1 h10 a3 j8 a5 k8 a7",
    );
    assert!(search(&game, 1) >= MATE_BOUND, "{}", game.render());
}

/// Whether the side to move wins by continuous fours within `plies` of its own moves,
/// every defence tried: the slow reference of the VCF.
fn slow_vcf(game: &mut Gomoku, plies: u32) -> bool {
    let attacker = game.side.index();
    let empties: Vec<usize> = game
        .board_cells()
        .filter(|&c| game.board[c] == EMPTY)
        .collect();
    if empties.iter().any(|&c| game.five_through(c, attacker)) {
        return true;
    }
    if plies == 0 {
        return false;
    }
    for &cell in &empties {
        game.make_move(Cell(cell as u16));
        let threats = empties
            .iter()
            .filter(|&&c| c != cell && game.five_through(c, attacker));
        let forcing = threats.count() > 0;
        let wins = forcing && every_defence_loses(game, plies - 1);
        game.unmake_move(Cell(cell as u16));
        if wins {
            return true;
        }
    }
    false
}

/// Whether every move of the defender to move loses to a VCF within `plies`.
fn every_defence_loses(game: &mut Gomoku, plies: u32) -> bool {
    let defender = game.side.index();
    let empties: Vec<usize> = game
        .board_cells()
        .filter(|&c| game.board[c] == EMPTY)
        .collect();
    if empties.iter().any(|&c| game.five_through(c, defender)) {
        return false;
    }
    empties.iter().all(|&cell| {
        game.make_move(Cell(cell as u16));
        let lost = slow_vcf(game, plies);
        game.unmake_move(Cell(cell as u16));
        lost
    })
}

#[test]
fn vcf_claims_only_true_wins() {
    let mut rng = SplitMix::new(36);
    let mut claims = 0;
    for round in 0..300 {
        let variant = if round % 2 == 0 {
            GomokuVariant::new(11, Rule::Freestyle).unwrap()
        } else {
            GomokuVariant::new(11, Rule::ExactlyFive).unwrap()
        };
        let mut game = random_position(variant, &mut rng, 14 + round % 12);
        if game.outcome().is_some() {
            continue;
        }
        let score = search(&game, 1);
        if score >= MATE_BOUND {
            claims += 1;
            let plies = (crate::search::score::MATE - score) as u32;
            if plies <= 5 {
                assert!(slow_vcf(&mut game, plies.div_ceil(2)), "{}", game.to_fen());
            }
        }
    }
    assert!(claims > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn incremental_tables_match_a_recount(seed in any::<u64>(), stones in 1usize..60, big in any::<bool>()) {
        let variant = if big { GomokuVariant::FREESTYLE20 } else { GomokuVariant::STANDARD15 };
        let mut rng = SplitMix::new(seed);
        let game = random_position(variant.clone(), &mut rng, stones);
        check_consistent(&game);
        // Unmaking every move restores the empty board's tables.
        let mut back = game.clone();
        let start = Gomoku::start(&variant);
        let mut moves: Vec<usize> = back.board_cells().filter(|&c| back.board[c] != EMPTY).collect();
        // Take back in an order the side to move allows: alternate colours.
        while back.stones > 0 {
            let mover = back.side.other().index() as u8 + 1;
            let at = moves.iter().position(|&c| back.board[c] == mover).unwrap();
            let cell = moves.remove(at);
            back.unmake_move(Cell(cell as u16));
        }
        prop_assert_eq!(back.hash, start.hash);
        prop_assert_eq!(back.value, start.value);
        prop_assert_eq!(back.threat_count, start.threat_count);
        prop_assert!(back.near.iter().all(|&n| n == 0));
    }

    #[test]
    fn incremental_tables_survive_random_make_and_unmake(seed in any::<u64>(), big in any::<bool>(), exact in any::<bool>()) {
        let size = if big { 20 } else { 15 };
        let rule = if exact { Rule::ExactlyFive } else { Rule::Freestyle };
        let variant = GomokuVariant::new(size, rule).unwrap();
        let mut rng = SplitMix::new(seed);
        let mut game = Gomoku::start(&variant);
        let mut played: Vec<Cell> = Vec::new();
        for step in 0..120 {
            // Mostly moves near the stones (where the patterns change), some take-backs.
            let mut moves = MoveList::new();
            game.generate_search_moves(&mut moves);
            if !played.is_empty() && (moves.is_empty() || rng.below(3) == 0) {
                game.unmake_move(played.pop().unwrap());
            } else if !moves.is_empty() {
                let mv = moves[rng.below(moves.len())];
                let predicted = game.hash_after(mv);
                let gives_check = game.gives_check(mv);
                game.make_move(mv);
                prop_assert_eq!(predicted, Some(game.hash()), "the key the search prefetches");
                // A move the search skips as giving no check never does; under freestyle
                // the prediction is exact (under exactly five a four may be an overline's).
                if gives_check == Some(false) || (!exact && game.outcome().is_none()) {
                    prop_assert_eq!(gives_check, Some(game.in_check()), "{}", game.to_fen());
                }
                played.push(mv);
            }
            if step % 15 == 14 {
                check_consistent(&game);
            }
        }
        check_consistent(&game);
    }
}

#[test]
fn an_open_three_leaves_only_its_defences() {
    let game = played(GomokuVariant::FREESTYLE15, "a1 h8 o1 h9 a15 h10");
    let mut moves = MoveList::new();
    game.generate_search_moves(&mut moves);
    let names: Vec<String> = moves.iter().map(|&m| game.format_move(m)).collect();
    assert!(names.iter().all(|name| name.starts_with('h')), "{names:?}");
    assert!(names.contains(&"h7".to_string()) && names.contains(&"h11".to_string()));
    // With a four of its own, the side to move may also counter with it.
    let counter = played(GomokuVariant::FREESTYLE15, "a1 h8 a2 h9 a3 h10");
    moves.clear();
    counter.generate_search_moves(&mut moves);
    let names: Vec<String> = moves.iter().map(|&m| counter.format_move(m)).collect();
    assert!(names.contains(&"a4".to_string()), "{names:?}");
    assert!(names.contains(&"h11".to_string()), "{names:?}");
}

#[test]
fn quiescence_fours_stay_within_reach_of_the_last_stone() {
    // x holds a1 a2 a3 (fours at a4, a5) and, last, h8 h9 h10 (fours at h6, h7, h11, h12).
    let line = "a1 o1 a2 o3 a3 o5 h8 o7 h9 o9 h10 o12";
    let game = played(GomokuVariant::FREESTYLE15, line);
    let noisy = |game: &Gomoku| {
        let mut moves = MoveList::new();
        game.generate_noisy(&mut moves);
        let mut names: Vec<String> = moves.iter().map(|&m| game.format_move(m)).collect();
        names.sort();
        names
    };
    assert_eq!(noisy(&game), ["h11", "h12", "h6", "h7"]);
    // The same stones without the moves' records: every four.
    let restored = Gomoku::from_fen(&GomokuVariant::FREESTYLE15, &game.to_fen()).unwrap();
    assert_eq!(noisy(&restored), ["a4", "a5", "h11", "h12", "h6", "h7"]);
}

#[test]
fn a_three_that_continues_an_attack_is_not_quiet() {
    // x's last stone e7 made the open three e5 e6 e7 (o blocked it at e8): j8, a new three
    // (h8 i8 j8), continues the attack and is ordered and searched as forcing.
    let attack = played(
        GomokuVariant::FREESTYLE15,
        "h8 a1 i8 o1 e5 a15 e6 o15 e7 e8",
    );
    let j8 = attack.parse_move("j8").unwrap();
    assert!(attack.attacking());
    assert!(attack.move_hint(j8) >= QUIET_HINT_LIMIT);
    // The same three after a quiet last stone (m13) is a quiet move.
    let quiet = played(
        GomokuVariant::FREESTYLE15,
        "h8 a1 i8 o1 e5 a15 e6 o15 m13 e8",
    );
    assert!(!quiet.attacking());
    assert!(quiet.move_hint(j8) < QUIET_HINT_LIMIT);
    // After a null move the side's own last stone is the newest record.
    let mut passed = played(GomokuVariant::FREESTYLE15, "h8 a1 i8 o1 e5 a15 e6 o15 e7");
    passed.make_null();
    assert!(passed.attacking());
}

#[test]
fn the_policy_reads_the_last_stones_of_each_side_after_moves_and_a_null_move() {
    // x played h8 last but one, o i9 last: x to move at f8 is 2 from h8 (its own) and 3
    // from i9 (the opponent's).
    let mut game = played(GomokuVariant::FREESTYLE15, "a1 o15 h8 i9");
    let f8 = game.parse_move("f8").unwrap();
    let inputs = game.policy_inputs(f8);
    assert_eq!(
        inputs.near,
        [policy::near_bucket(3), policy::near_bucket(2)]
    );
    // After x's null move o is to move: its own last stone i9 is the newest record, the
    // opponent's h8 the one before.
    game.make_null();
    let inputs = game.policy_inputs(f8);
    assert_eq!(
        inputs.near,
        [policy::near_bucket(2), policy::near_bucket(3)]
    );
    game.unmake_null();
    assert_eq!(
        game.policy_inputs(f8).near,
        [policy::near_bucket(3), policy::near_bucket(2)]
    );
    // On the empty board neither last stone is known.
    let empty = Gomoku::start(&GomokuVariant::FREESTYLE15);
    let h8 = empty.parse_move("h8").unwrap();
    assert_eq!(empty.policy_inputs(h8).near, [policy::NEAR_UNKNOWN; 2]);
}

#[test]
fn take_backs_beyond_the_undo_ring_recompute() {
    // 180 stones on 20x20 coloured so that no line of five forms: pairs along the rows,
    // rows alternating (runs of at most two in every direction); more moves than the
    // undo ring keeps, all taken back.
    let variant = GomokuVariant::new(20, Rule::Freestyle).unwrap();
    let mut game = Gomoku::start(&variant);
    let start = Gomoku::start(&variant);
    let cells: Vec<usize> = game.board_cells().collect();
    let colour = |i: usize| ((i % 20) / 2 + i / 20) % 2;
    let by_colour = |c| (0..cells.len()).filter(move |&i| colour(i) == c);
    let moves: Vec<Cell> = by_colour(0)
        .zip(by_colour(1))
        .flat_map(|(black, white)| [black, white])
        .take(180)
        .map(|i| Cell(cells[i] as u16))
        .collect();
    assert!(moves.len() > UNDO_DEPTH);
    for &mv in &moves {
        game.make_move(mv);
        assert!(!game.won, "no five in this colouring");
    }
    check_consistent(&game);
    for (taken, &mv) in moves.iter().rev().enumerate() {
        game.unmake_move(mv);
        // Within the ring, then past it (the records of the first moves are gone).
        if taken == 30 || taken == UNDO_DEPTH + 5 {
            check_consistent(&game);
        }
    }
    check_consistent(&game);
    assert_eq!(game.value, start.value);
    assert_eq!(game.threat_count, start.threat_count);
    assert!(game.near.iter().all(|&n| n == 0));
}

#[test]
fn code_sums_follow_a_take_back_without_its_record() {
    use crate::nnue::{random_bucketed_network, Activation};
    let net: crate::games::EvalNet = Arc::new(random_bucketed_network(
        nnue::PCODE,
        8,
        1,
        Activation::SCReLU,
        3,
    ));
    let variant = GomokuVariant {
        net: nnue::NetRef::of(&net),
        ..GomokuVariant::FREESTYLE15
    };
    let fen = "15/15/15/15/15/15/7x7/6o8/7x7/15/15/15/15/15/15 o";
    let mut game = Gomoku::from_fen(&variant, fen).unwrap();
    assert!(game.net_codes());
    check_consistent(&game);
    let mv = game.parse_move("j9").unwrap();
    game.make_move(mv);
    check_consistent(&game);
    game.unmake_move(mv);
    // A stone of the position itself: no undo record, the patterns are recomputed.
    game.unmake_move(game.parse_cell("h9").unwrap());
    check_consistent(&game);
    play(&mut game, "g7 f6");
    check_consistent(&game);
}
