//! Line patterns: what a stone on a cell makes in one direction, read from a table.
//!
//! A cell's neighbourhood in one direction is the four cells on each side of it, two bits
//! each (`0` empty, `1` the first player's stone, `2` the second's, `3` off the board): a
//! 16-bit *line key*, nearest neighbours in the middle bits. The table maps a key (seen
//! from the player who would place the stone, see [`Perspective`]) to the [`Pattern`]
//! that stone would make, as Rapfi's classical evaluator classifies lines: a five, an open
//! four (two ways to five), a four (one way), an open three (one move from an open four),
//! a three (one move from a four), and so on down. The table is built once per rule by a
//! memoised search over the keys (the pattern of a line is decided by the patterns one
//! more own stone makes) and then only read.
//!
//! Only the nine cells of the window are seen, so under the exactly-five rule a five that
//! touches the window's end may be an overline: patterns guide the search; wins are always
//! decided on the board itself. Under renju the first player's (Black's) patterns are those
//! of exactly five and the second player's those of freestyle.

use std::sync::OnceLock;

use super::Rule;

/// What a stone placed on a cell makes in one direction, weakest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five can ever pass through the stone in this direction.
    Dead,
    /// One stone that could still grow, blocked on a side.
    Block1,
    /// One stone with room on both sides.
    Flex1,
    /// Two stones, one move from a [`Pattern::Block3`] only.
    Block2,
    /// Two stones, one move from an open three.
    Flex2,
    /// Three stones, one move from a four.
    Block3,
    /// An open three: one move from an open four.
    Flex3,
    /// A four: one cell completes a five.
    Block4,
    /// An open four: two cells complete a five.
    Flex4,
    /// A five (for the exactly-five rule, not an overline inside the window).
    Five,
}

/// Number of [`Pattern`] values.
pub const PATTERNS: usize = 10;

/// Number of line keys: four neighbours on each side, two bits each.
pub const KEYS: usize = 1 << 16;

/// Off-board cells in a line key.
pub const WALL_BITS: u16 = 3;

/// The bit offset of the neighbour `step` cells away (`-4..=4`, not 0) in a line key.
pub const fn shift(step: i32) -> u32 {
    // Neighbours -4..-1 take slots 0..3, +1..+4 take slots 4..7.
    let slot = if step < 0 { step + 4 } else { step + 3 };
    2 * slot as u32
}

/// Turns a line key into the view of the player to place a stone: own stones `1`.
#[derive(Copy, Clone, Debug)]
pub struct Perspective;

impl Perspective {
    /// The key as `player` (0 first, 1 second) sees it: for the second player, stones
    /// `1` and `2` swap; empty and wall cells stay.
    #[inline]
    pub fn of(key: u16, player: usize) -> u16 {
        if player == 0 {
            key
        } else {
            key ^ ((((key >> 1) ^ key) & 0x5555) * 3)
        }
    }
}

/// Per rule, both players' patterns per absolute line key, built on first use.
static TABLES: OnceLock<[Box<[[Pattern; 2]]>; 3]> = OnceLock::new();

/// The pattern of `key` from the view of the player to place the stone (the first
/// player's entry of [`pair_table`]: to the first player, keys are already its view).
#[cfg(test)]
pub fn own_pattern(rule: Rule, key: u16) -> Pattern {
    pair_table(rule)[usize::from(key)][0]
}

/// Both players' patterns per absolute line key under `rule` (index 0 the first
/// player's): one read where the search needs both, without turning the key.
pub fn pair_table(rule: Rule) -> &'static [[Pattern; 2]] {
    let tables = TABLES.get_or_init(|| {
        let [free, exact] = [Rule::Freestyle, Rule::ExactlyFive].map(build);
        // Per rule, the table each player's patterns come from.
        let sources: [[&[Pattern]; 2]; 3] = [[&free, &free], [&exact, &exact], [&exact, &free]];
        sources.map(|tables| {
            (0..KEYS)
                .map(|key| {
                    [0, 1].map(|player| {
                        tables[player][usize::from(Perspective::of(key as u16, player))]
                    })
                })
                .collect()
        })
    });
    &tables[rule as usize]
}

/// The cells of a window: index 4 is the cell itself (own), the rest read from the key.
fn decode(key: u16) -> [u8; 9] {
    let mut line = [1u8; 9];
    for step in -4i32..=4 {
        if step != 0 {
            line[(step + 4) as usize] = ((key >> shift(step)) & 3) as u8;
        }
    }
    line
}

/// The key of a window (the inverse of [`decode`]; the middle cell is implied).
fn encode(line: &[u8; 9]) -> u16 {
    let mut key = 0;
    for step in -4i32..=4 {
        if step != 0 {
            key |= u16::from(line[(step + 4) as usize]) << shift(step);
        }
    }
    key
}

/// The length of the run of own stones through the middle cell.
fn run_through_middle(line: &[u8; 9]) -> usize {
    let left = line[..4].iter().rev().take_while(|&&c| c == 1).count();
    let right = line[5..].iter().take_while(|&&c| c == 1).count();
    left + 1 + right
}

/// Whether the run through the middle is a five under `rule`.
fn is_five(line: &[u8; 9], rule: Rule) -> bool {
    let run = run_through_middle(line);
    match rule {
        Rule::Freestyle => run >= 5,
        // Renju's tables are those of the other two rules (see `pair_table`).
        Rule::ExactlyFive | Rule::Renju => run == 5,
    }
}

/// Builds the table of `rule` by a memoised search over keys.
fn build(rule: Rule) -> Box<[Pattern]> {
    let mut memo: Vec<Option<Pattern>> = vec![None; KEYS];
    for key in 0..KEYS {
        classify(key as u16, rule, &mut memo);
    }
    memo.into_iter()
        .map(|p| p.unwrap_or(Pattern::Dead))
        .collect()
}

/// The pattern of `key` (own stone in the middle), computing and remembering it.
fn classify(key: u16, rule: Rule, memo: &mut [Option<Pattern>]) -> Pattern {
    if let Some(pattern) = memo[usize::from(key)] {
        return pattern;
    }
    let line = decode(key);
    let pattern = if is_five(&line, rule) {
        Pattern::Five
    } else {
        let mut fives = 0;
        let mut best = Pattern::Dead;
        for cell in 0..9 {
            if line[cell] != 0 {
                continue;
            }
            let mut next = line;
            next[cell] = 1;
            if is_five(&next, rule) {
                fives += 1;
            } else {
                best = best.max(classify(encode(&next), rule, memo));
            }
        }
        match (fives, best) {
            (2.., _) => Pattern::Flex4,
            (1, _) => Pattern::Block4,
            (_, Pattern::Flex4) => Pattern::Flex3,
            (_, Pattern::Block4) => Pattern::Block3,
            (_, Pattern::Flex3) => Pattern::Flex2,
            (_, Pattern::Block3) => Pattern::Block2,
            (_, Pattern::Flex2) => Pattern::Flex1,
            (_, Pattern::Block2) => Pattern::Block1,
            _ => Pattern::Dead,
        }
    };
    memo[usize::from(key)] = Some(pattern);
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of a window written as text: `x` own, `o` opponent, `#` wall, `.` empty,
    /// the middle character (always `x`) the cell itself.
    fn key(text: &str) -> u16 {
        let mut line = [0u8; 9];
        for (i, ch) in text.chars().enumerate() {
            line[i] = match ch {
                'x' => 1,
                'o' => 2,
                '#' => 3,
                _ => 0,
            };
        }
        assert_eq!(line[4], 1, "{text}");
        encode(&line)
    }

    fn pattern(text: &str, rule: Rule) -> Pattern {
        own_pattern(rule, key(text))
    }

    #[test]
    fn known_shapes() {
        let free = Rule::Freestyle;
        assert_eq!(pattern("..xxxxx..", free), Pattern::Five);
        assert_eq!(pattern("xxxxxxxxx", free), Pattern::Five);
        assert_eq!(pattern("...xxxx..", free), Pattern::Flex4);
        assert_eq!(pattern("..oxxxx..", free), Pattern::Block4);
        assert_eq!(pattern(".xx.xx...", free), Pattern::Block4);
        assert_eq!(pattern("...xxx...", free), Pattern::Flex3);
        assert_eq!(pattern("..oxxx...", free), Pattern::Block3);
        assert_eq!(pattern("..x.xx...", free), Pattern::Flex3);
        assert_eq!(pattern("....xx...", free), Pattern::Flex2);
        assert_eq!(pattern("....x....", free), Pattern::Flex1);
        assert_eq!(pattern("...oxo...", free), Pattern::Dead);
        assert_eq!(pattern("#o..x.o..", free), Pattern::Dead);
        assert_eq!(pattern("...#xxxx.", free), Pattern::Block4);
    }

    #[test]
    fn exactly_five_refuses_overlines() {
        let exact = Rule::ExactlyFive;
        assert_eq!(pattern("..xxxxx..", exact), Pattern::Five);
        assert_eq!(pattern(".xxxxxx..", exact), Pattern::Dead);
        // `xxxx.x` would make six: only the other end completes a five.
        assert_eq!(pattern("..xxxx.x.", exact), Pattern::Block4);
        assert_eq!(pattern("..xxxx.x.", Rule::Freestyle), Pattern::Flex4);
    }

    #[test]
    fn pair_table_reads_both_perspectives() {
        for rule in [Rule::Freestyle, Rule::ExactlyFive] {
            for text in ["..oxxxx..", "#ox.x.xo.", "...xxx...", ".xxxxxx.."] {
                let k = key(text);
                let pair = pair_table(rule)[usize::from(k)];
                assert_eq!(pair[0], pattern(text, rule));
                assert_eq!(pair[1], own_pattern(rule, Perspective::of(k, 1)));
            }
        }
        assert_eq!(
            pair_table(Rule::Freestyle)[usize::from(key("..oxxxx.."))][1],
            Pattern::Dead
        );
    }

    #[test]
    fn renju_reads_black_as_exactly_five_and_white_as_freestyle() {
        let k = key(".xxxx.x..");
        let (free, exact) = (pair_table(Rule::Freestyle), pair_table(Rule::ExactlyFive));
        let renju = pair_table(Rule::Renju)[usize::from(k)];
        assert_eq!(renju[0], exact[usize::from(k)][0]);
        assert_eq!(renju[0], Pattern::Block4);
        // The same stones as White's: a freestyle open four (an overline wins for White).
        let white = usize::from(Perspective::of(k, 1));
        assert_eq!(pair_table(Rule::Renju)[white][1], free[white][1]);
        assert_eq!(free[white][1], Pattern::Flex4);
    }

    #[test]
    fn perspective_swaps_stones_only() {
        let text_key = key("#ox.x.xo.");
        let swapped = Perspective::of(text_key, 1);
        let line = decode(swapped);
        assert_eq!(line, [3, 1, 2, 0, 1, 0, 2, 1, 0]);
        assert_eq!(Perspective::of(swapped, 1), text_key);
    }
}
