//! Adjudication by the engines' own scores: the draw and resign rules, and reading the
//! scores (and depths) from engines' `info` lines.

use super::record::PlayedMove;
use super::rules::{DrawRule, RefereeSettings, ResignRule};
use cutoff::search::{GameResult, Player};

/// Score and depth of an `info` line, when it has them.
pub(super) fn parse_info(line: &str) -> (Option<String>, Option<u32>) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut score = None;
    let mut depth = None;
    for (i, token) in tokens.iter().enumerate() {
        match *token {
            "score" if i + 2 < tokens.len() => {
                score = Some(format!("{} {}", tokens[i + 1], tokens[i + 2]))
            }
            "depth" if i + 1 < tokens.len() => depth = tokens[i + 1].parse().ok(),
            _ => {}
        }
    }
    (score, depth)
}

/// An engine's reported score (`cp N` or `mate N`) in centipawns; mates are ±100,000
/// minus the distance.
fn score_centipawns(score: &str) -> Option<i32> {
    let (kind, value) = score.split_once(' ')?;
    let value: i32 = value.trim().parse().ok()?;
    match kind {
        "cp" => Some(value),
        "mate" if value > 0 => Some(100_000 - value),
        "mate" => Some(-100_000 - value),
        _ => None,
    }
}

/// The scores of the last `count` moves taken every `step` plies back from the last move,
/// newest first; `None` when there are fewer moves or one of them has no score.
fn recent_scores(moves: &[PlayedMove], count: usize, step: usize) -> Option<Vec<i32>> {
    let wanted: Vec<&PlayedMove> = moves.iter().rev().step_by(step).take(count).collect();
    if wanted.len() < count {
        return None;
    }
    wanted
        .iter()
        .map(|m| m.score.as_deref().and_then(score_centipawns))
        .collect()
}

/// The resign rule: the last mover loses when its own last scores were all lost.
fn resign(
    moves: &[PlayedMove],
    last_mover: Player,
    rule: ResignRule,
) -> Option<(GameResult, String)> {
    let own = recent_scores(moves, rule.move_count.max(1) as usize, 2)?;
    if !own.iter().all(|&s| s <= -rule.score) {
        return None;
    }
    let result = match last_mover {
        Player::First => GameResult::SecondWins,
        Player::Second => GameResult::FirstWins,
    };
    let reason = format!(
        "adjudicated: the loser's score was at or below -{} cp for {} moves",
        rule.score, rule.move_count
    );
    Some((result, reason))
}

/// The draw rule: a draw when, late enough, both sides' last scores were all level.
fn draw(
    moves: &[PlayedMove],
    opening_plies: usize,
    rule: DrawRule,
) -> Option<(GameResult, String)> {
    let full_move = (opening_plies + moves.len()) / 2 + 1;
    if (full_move as u32) < rule.move_number {
        return None;
    }
    let both = recent_scores(moves, 2 * rule.move_count.max(1) as usize, 1)?;
    if !both.iter().all(|s| s.abs() <= rule.score) {
        return None;
    }
    let reason = format!(
        "adjudicated draw: scores within ±{} cp for {} moves",
        rule.score, rule.move_count
    );
    Some((GameResult::Draw, reason))
}

/// Applies the adjudication rules to the moves played so far; `opening_plies` counts the
/// book moves before them. Returns the result and the reason.
pub(super) fn adjudicate(
    moves: &[PlayedMove],
    opening_plies: usize,
    last_mover: Player,
    settings: &RefereeSettings,
) -> Option<(GameResult, String)> {
    let resigned = settings
        .resign_rule
        .and_then(|rule| resign(moves, last_mover, rule));
    resigned.or_else(|| {
        settings
            .draw_rule
            .and_then(|rule| draw(moves, opening_plies, rule))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_score_and_depth() {
        let line = "info depth 7 seldepth 9 multipv 1 score cp -12 nodes 5 pv 4";
        assert_eq!(parse_info(line), (Some("cp -12".into()), Some(7)));
        assert_eq!(parse_info("info string hello"), (None, None));
    }

    fn scored(score: &str) -> PlayedMove {
        PlayedMove {
            text: "m".into(),
            record_text: "m".into(),
            time_ms: 1,
            score: Some(score.to_string()),
            depth: Some(1),
        }
    }

    #[test]
    fn adjudication_rules() {
        let settings = RefereeSettings {
            draw_rule: Some(DrawRule {
                move_number: 5,
                move_count: 2,
                score: 10,
            }),
            resign_rule: Some(ResignRule {
                move_count: 3,
                score: 500,
            }),
            ..RefereeSettings::default()
        };
        assert_eq!(score_centipawns("cp -35"), Some(-35));
        assert_eq!(score_centipawns("mate 3"), Some(99_997));
        assert_eq!(score_centipawns("mate -2"), Some(-99_998));
        // Four small scores in a row, but before move 5: no draw yet.
        let quiet: Vec<PlayedMove> = ["cp 3", "cp -5", "cp 0", "cp 10"].map(scored).to_vec();
        assert_eq!(adjudicate(&quiet, 0, Player::Second, &settings), None);
        let result = adjudicate(&quiet, 6, Player::Second, &settings);
        assert_eq!(result.map(|r| r.0), Some(GameResult::Draw));
        // One larger score breaks the streak.
        let busy: Vec<PlayedMove> = ["cp 3", "cp -50", "cp 0", "cp 10"].map(scored).to_vec();
        assert_eq!(adjudicate(&busy, 6, Player::Second, &settings), None);
        // The last mover (second player) reported -500 or worse on its last three moves.
        let lost: Vec<PlayedMove> = ["cp -600", "cp 600", "mate -4", "cp 700", "cp -550"]
            .map(scored)
            .to_vec();
        let result = adjudicate(&lost, 0, Player::Second, &settings);
        assert_eq!(result.map(|r| r.0), Some(GameResult::FirstWins));
        // A missing score never adjudicates.
        let mut unscored = lost.clone();
        unscored[2].score = None;
        assert_eq!(adjudicate(&unscored, 0, Player::Second, &settings), None);
    }
}
