//! How chess describes itself to the registry: names, players, bench positions, book.

use crate::games::{BenchPosition, GameInfo, PieceMarks, ProtocolSettings, ToolSettings};
use crate::search::{EloAnchor, WdlModel};

/// Chess in the registry (standard; `UCI_Chess960` selects Chess960).
pub const INFO: GameInfo = GameInfo {
    name: "chess",
    aliases: &["standard"],
    summary: "chess, FIDE rules (cozy-chess); Chess960 with UCI_Chess960",
    players: ["white", "black"],
    pieces: PieceMarks::Letters,
    eval_net: Some(super::nnue::NET_SUPPORT),
    tablebases: Some(super::TABLEBASE_SUPPORT),
    wdl: Some(WDL),
    elo_scale: Some(ELO_SCALE),
    protocol: ProtocolSettings {
        variant_options: &[
            super::CHESS960_OPTION,
            super::SYZYGY_PROBE_DEPTH_OPTION,
            super::SYZYGY_50_MOVE_RULE_OPTION,
            super::SYZYGY_PROBE_LIMIT_OPTION,
        ],
        ..ProtocolSettings::NONE
    },
    tools: ToolSettings {
        bench_positions: BENCH,
        bench_depth: 11,
        opening_book: "openings/chess.txt",
        match_tc: "8+0.08",
        solvable: false,
        test_set: None,
    },
};

/// The Elo scale of chess (`UCI_LimitStrength`, `UCI_Elo`): the playing level `s` (0 to 20,
/// see [`crate::search::skill`]) that plays at each rating, read linearly in between; its
/// first and last ratings are `UCI_Elo`'s range. Measured against Stockfish 15.1 at its
/// `UCI_Elo` (20 games a point at 5 s + 0.05 s, the levels around each rating, then checked
/// at 10 s + 0.1 s: protocol.md); 1320 is extrapolated. A stronger net makes every level
/// stronger, so the anchors are re-fitted with each net (a line through several 40-game
/// samples around a rating, which spread by about 90 Elo). Full strength scores 47.5%
/// against Stockfish's 2500, so from 2500 up cutoff plays at full strength, and the scale
/// ends at full strength as measured on Stockfish's scale at 10 s + 0.1 s: 28.9% over 200
/// games against its 2850, -156 Elo, 2694, rounded down to 2690 so that no rating in the
/// range promises more than the engine has.
pub const ELO_SCALE: &[EloAnchor] = &[
    EloAnchor {
        elo: 1320,
        level: 3.9,
    },
    EloAnchor {
        elo: 1500,
        level: 4.9,
    },
    EloAnchor {
        elo: 2000,
        level: 11.15,
    },
    EloAnchor {
        elo: 2500,
        level: 20.0,
    },
    EloAnchor {
        elo: 2690,
        level: 20.0,
    },
];

/// The win/draw/loss model (`UCI_ShowWDL`) by the material of both sides (pawn 1, knight
/// and bishop 3, rook 5, queen 9:
/// [`SearchRefinements::wdl_phase`](crate::search::SearchRefinements::wdl_phase)),
/// fitted by `scripts/fit_wdl.py` on 104,115 quiet positions of 1,500 self-play games
/// (`cutoff datagen --games 1500 --nodes 3000 --format bullet --seed 71`) and checked on
/// 100,984 of 1,500 others (`--seed 72`): held-out log-loss 0.567 nats a position against
/// 1.098 for the base rates (0.643 without the material). See docs/chess.md.
pub const WDL: WdlModel = WdlModel {
    a: [285.782, -226.960, -489.337, 508.812],
    b: [7.968, 70.898, -105.014, 157.809],
    phase_min: 17,
    phase_max: 78,
    phase_scale: 58.0,
};

/// The bench: the start position, the perft suite's positions, middle games and endings
/// (40 positions, as OpenBench-style benches have).
const BENCH: &[BenchPosition] = &[
    BenchPosition::from_start(""),
    BenchPosition::fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    BenchPosition::fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    BenchPosition::fen("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    BenchPosition::fen("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"),
    BenchPosition::fen("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"),
    BenchPosition::fen("r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14"),
    BenchPosition::fen("4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24"),
    BenchPosition::fen("r3qbrk/6p1/2b2pPp/p3pP1Q/PpPpP2P/3P1B2/2PB3K/R5R1 w - - 16 42"),
    BenchPosition::fen("6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44"),
    BenchPosition::fen("8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54"),
    BenchPosition::fen("7r/2p3k1/1p1p1qp1/1P1Bp3/p1P2r1P/P7/4R3/Q4RK1 w - - 0 36"),
    BenchPosition::fen("r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10"),
    BenchPosition::fen("3r3k/2r4p/1p1b3q/p4P2/P2Pp3/1B2P3/3BQ1RP/6K1 w - - 3 87"),
    BenchPosition::fen("8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1"),
    BenchPosition::fen("8/8/3P3k/8/1p6/8/1P6/1K3n2 b - - 0 1"),
    BenchPosition::fen("8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124"),
    BenchPosition::fen("6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1"),
    BenchPosition::from_start("e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    BenchPosition::from_start("d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8 f1d3 d7d5"),
    BenchPosition::fen("4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19"),
    BenchPosition::fen("rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14"),
    BenchPosition::fen("r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14"),
    BenchPosition::fen("r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15"),
    BenchPosition::fen("r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13"),
    BenchPosition::fen("r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16"),
    BenchPosition::fen("4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17"),
    BenchPosition::fen("2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11"),
    BenchPosition::fen("r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16"),
    BenchPosition::fen("3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22"),
    BenchPosition::fen("r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18"),
    BenchPosition::fen("4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22"),
    BenchPosition::fen("3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26"),
    BenchPosition::fen("6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1"),
    BenchPosition::fen("3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1"),
    BenchPosition::fen("2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1"),
    BenchPosition::fen("8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1"),
    BenchPosition::fen("7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1"),
    BenchPosition::fen("8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1"),
    BenchPosition::fen("1r3k2/4q3/2Pp3b/3Bp3/2Q2p2/1p1P2P1/1P2KP2/3N4 w - - 0 1"),
];
