//! Turning search events (and perft counts) into protocol lines.

// `pub`: the controller and the session name the dialect from here too.
pub use super::dialect::Dialect;
use super::dialect::NO_MOVE;
use crate::search::perft::PerftDivide;
use crate::search::{ScoreReport, SearchInfo, Wdl};

/// `info depth .. seldepth .. score .. [wdl W D L] nodes .. nps .. hashfull .. [tbhits ..]
/// time .. pv ..`: `pv` holds the moves already written in the game's notation, `wdl` the
/// side to move's chances when they are reported (`UCI_ShowWDL`), `tbhits` once endgame
/// tables have answered.
pub fn format_info<M>(info: &SearchInfo<M>, pv: &[String], wdl: Option<Wdl>) -> String {
    let mut score = ScoreReport::from_score(info.score).to_string();
    if let Some(wdl) = wdl {
        score = format!("{score} wdl {wdl}");
    }
    if info.depth == 0 {
        return format!("info depth 0 score {score}");
    }
    let tbhits = match info.tbhits {
        0 => String::new(),
        hits => format!(" tbhits {hits}"),
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {}{tbhits} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score,
        info.nodes,
        info.nps(),
        info.hashfull,
        info.elapsed.as_millis()
    );
    if !pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&pv.join(" "));
    }
    line
}

/// `bestmove X [ponder Y]`; `bestmove (none)` when there is no move. `ponder` only where
/// the dialect has it (UCI: UGI and UAI clients read exactly one move).
pub fn format_bestmove(line: &[String], dialect: Dialect) -> String {
    match (line.first(), line.get(1)) {
        (None, _) => format!("bestmove {NO_MOVE}"),
        (Some(best), Some(ponder)) if dialect.bestmove_has_ponder() => {
            format!("bestmove {best} ponder {ponder}")
        }
        (Some(best), _) => format!("bestmove {best}"),
    }
}

/// The lines of `perft N`: `move: count` per root move, a blank line, `Nodes searched: T`
/// and an `info string` with depth, nodes, time and speed.
pub fn format_perft(divide: &PerftDivide) -> Vec<String> {
    let total = divide.total();
    let mut lines: Vec<String> = divide
        .counts
        .iter()
        .map(|(m, n)| format!("{m}: {n}"))
        .collect();
    lines.push(String::new());
    lines.push(format!("Nodes searched: {total}"));
    lines.push(format!(
        "info string perft depth {} nodes {total} time {} nps {}",
        divide.depth,
        divide.elapsed.as_millis(),
        divide.nps()
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;
    use std::time::Duration;

    fn info(depth: u32, score: i32) -> SearchInfo<u8> {
        SearchInfo {
            depth,
            seldepth: 3,
            multipv: 1,
            score,
            nodes: 2000,
            elapsed: Duration::from_millis(2),
            hashfull: 5,
            tbhits: 0,
            pv: vec![],
        }
    }

    #[test]
    fn info_lines_carry_every_field() {
        let line = format_info(&info(2, MATE - 3), &["4".into(), "4".into()], None);
        assert_eq!(
            line,
            "info depth 2 seldepth 3 multipv 1 score mate 2 nodes 2000 nps 1000000 hashfull 5 time 2 pv 4 4"
        );
        let with_tables = SearchInfo {
            tbhits: 7,
            ..info(2, 5)
        };
        assert_eq!(
            format_info(&with_tables, &[], None),
            "info depth 2 seldepth 3 multipv 1 score cp 5 nodes 2000 nps 1000000 hashfull 5 tbhits 7 time 2"
        );
        assert_eq!(
            format_info(&info(0, -MATE), &[], None),
            "info depth 0 score mate 0"
        );
    }

    #[test]
    fn win_draw_loss_follows_the_score() {
        let wdl = Wdl {
            win: 120,
            draw: 850,
            loss: 30,
        };
        assert_eq!(
            format_info(&info(4, 35), &["e2e4".into()], Some(wdl)),
            "info depth 4 seldepth 3 multipv 1 score cp 35 wdl 120 850 30 nodes 2000 nps 1000000 hashfull 5 time 2 pv e2e4"
        );
        assert_eq!(
            format_info(&info(0, -MATE), &[], Some(wdl.flipped())),
            "info depth 0 score mate 0 wdl 30 850 120"
        );
    }

    #[test]
    fn bestmove_has_ponder_only_in_uci() {
        let line = ["e2e4".to_string(), "e7e5".to_string()];
        assert_eq!(
            format_bestmove(&line, Dialect::Uci),
            "bestmove e2e4 ponder e7e5"
        );
        assert_eq!(format_bestmove(&line, Dialect::Ugi), "bestmove e2e4");
        assert_eq!(format_bestmove(&line, Dialect::Uai), "bestmove e2e4");
        assert_eq!(format_bestmove(&[], Dialect::Uci), "bestmove (none)");
    }

    #[test]
    fn perft_lines_end_with_the_total() {
        let divide = PerftDivide {
            depth: 2,
            counts: vec![("a1".into(), 3), ("b2".into(), 4)],
            elapsed: Duration::from_millis(7),
        };
        assert_eq!(
            format_perft(&divide),
            [
                "a1: 3",
                "b2: 4",
                "",
                "Nodes searched: 7",
                "info string perft depth 2 nodes 7 time 7 nps 1000"
            ]
        );
    }
}
