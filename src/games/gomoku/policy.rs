//! Gomoku's learned move ordering: a score per cell code ([`super::nnue::code`], the
//! multiset of the four patterns a stone there would make) for the side to move and one
//! for the opponent, plus one per distance to the opponent's last stone and to the own
//! last stone, summed: what the quiet candidates are ordered by, as Rapfi's classical
//! evaluator orders its moves by its learned per-code scores. The tables are
//! fitted to the moves cutoff's own searches played (`cutoff --game gomoku
//! train-policy`, docs/training.md); the built-in one is `nets/gomoku-policy.bin`
//! (provenance in nets/README.md).
//!
//! # File layout (little-endian)
//!
//! | bytes        | content                                                    |
//! |--------------|------------------------------------------------------------|
//! | 0..8         | `cutoffGP`                                                 |
//! | 8..10        | the number of codes (715)                                  |
//! | 10..12       | the units of a score per unit of the fitted logit          |
//! | 12..1442     | the side to move's score per code (`i16`)                  |
//! | 1442..2872   | the opponent's score per code (`i16`)                      |
//! | 2872..2884   | the score per distance to the opponent's last stone        |
//! | 2884..2896   | the score per distance to the own last stone               |

use super::nnue::CODES;

/// The first bytes of a policy file.
pub const MAGIC: [u8; 8] = *b"cutoffGP";
/// Distance classes to a last stone: Chebyshev distance 1, 2, 3, 4, 5 or more, and no
/// such stone ([`NEAR_UNKNOWN`]).
pub const NEAR_BUCKETS: usize = 6;
/// The distance class where the last stone is not known.
pub const NEAR_UNKNOWN: usize = NEAR_BUCKETS - 1;
/// Bytes of a policy file.
pub const FILE_BYTES: usize = 12 + 4 * CODES + 4 * NEAR_BUCKETS;

/// The distance class of a Chebyshev distance (at least 1).
#[inline]
pub fn near_bucket(distance: usize) -> usize {
    distance.clamp(1, NEAR_UNKNOWN) - 1
}

/// What the policy reads of a cell ([`super::Gomoku::policy_inputs`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PolicyInputs {
    /// The cell's code for the side to move and for the opponent.
    pub codes: [usize; 2],
    /// The distance classes to the opponent's last stone and to the own last stone.
    pub near: [usize; 2],
}

/// A score per cell code for the side to move and for the opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The side to move's score of a cell by its code for the side to move.
    pub own: [i16; CODES],
    /// The side to move's score of a cell by its code for the opponent.
    pub theirs: [i16; CODES],
    /// The score by the distance class to the opponent's last stone, then to the own.
    pub near: [[i16; NEAR_BUCKETS]; 2],
    /// Score units per unit of the fitted logit.
    pub scale: u16,
}

/// The built-in tables.
pub static BUILT_IN: Policy = match Policy::parse(include_bytes!("../../../nets/gomoku-policy.bin"))
{
    Ok(policy) => policy,
    Err(_) => panic!("nets/gomoku-policy.bin is no policy file"),
};

impl Policy {
    /// The score of a cell with these inputs.
    #[inline]
    pub fn score(&self, inputs: &PolicyInputs) -> i32 {
        let [mine, theirs] = inputs.codes;
        let [last, own_last] = inputs.near;
        i32::from(self.own[mine])
            + i32::from(self.theirs[theirs])
            + i32::from(self.near[0][last])
            + i32::from(self.near[1][own_last])
    }

    /// The tables of a policy file, or what is wrong with it.
    pub const fn parse(bytes: &[u8]) -> Result<Policy, &'static str> {
        if bytes.len() != FILE_BYTES {
            return Err("a policy file is 2,896 bytes");
        }
        let mut i = 0;
        while i < MAGIC.len() {
            if bytes[i] != MAGIC[i] {
                return Err("no policy file (its first bytes are not cutoffGP)");
            }
            i += 1;
        }
        if u16::from_le_bytes([bytes[8], bytes[9]]) as usize != CODES {
            return Err("a policy file of another number of codes");
        }
        let scale = u16::from_le_bytes([bytes[10], bytes[11]]);
        let mut own = [0; CODES];
        let mut theirs = [0; CODES];
        let mut code = 0;
        while code < CODES {
            let at = 12 + 2 * code;
            own[code] = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            let at = at + 2 * CODES;
            theirs[code] = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            code += 1;
        }
        let mut near = [[0; NEAR_BUCKETS]; 2];
        let mut k = 0;
        while k < 2 * NEAR_BUCKETS {
            let at = 12 + 4 * CODES + 2 * k;
            near[k / NEAR_BUCKETS][k % NEAR_BUCKETS] =
                i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            k += 1;
        }
        Ok(Policy {
            own,
            theirs,
            near,
            scale,
        })
    }

    /// The policy file of these tables.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(FILE_BYTES);
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&(CODES as u16).to_le_bytes());
        bytes.extend_from_slice(&self.scale.to_le_bytes());
        let near = self.near.iter().flatten();
        for value in self.own.iter().chain(&self.theirs).chain(near) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_file_round_trips_and_junk_is_refused() {
        let mut policy = Policy {
            own: [0; CODES],
            theirs: [0; CODES],
            near: [[0; NEAR_BUCKETS]; 2],
            scale: 256,
        };
        policy.near[1][2] = 5;
        policy.own[17] = -300;
        policy.theirs[714] = 1234;
        let bytes = policy.to_bytes();
        assert_eq!(bytes.len(), FILE_BYTES);
        assert_eq!(Policy::parse(&bytes), Ok(policy.clone()));
        let inputs = |codes, near| PolicyInputs { codes, near };
        assert_eq!(policy.score(&inputs([17, 714], [2, 0])), 934);
        assert_eq!(policy.score(&inputs([17, 714], [0, 2])), 939);
        assert!(Policy::parse(&bytes[1..]).is_err());
        let mut wrong = bytes.clone();
        wrong[0] = b'x';
        assert!(Policy::parse(&wrong).is_err());
        let mut wrong = bytes;
        wrong[8] = 0;
        assert!(Policy::parse(&wrong).is_err());
    }

    #[test]
    fn the_built_in_policy_prefers_an_open_three_to_nothing() {
        use crate::games::gomoku::nnue::code;
        use crate::games::gomoku::pattern::Pattern;
        let nothing = code([Pattern::Dead; 4]);
        let three = code([Pattern::Dead, Pattern::Dead, Pattern::Dead, Pattern::Flex3]);
        let score = |codes| {
            BUILT_IN.score(&PolicyInputs {
                codes,
                near: [1, 1],
            })
        };
        assert!(score([three, nothing]) > score([nothing, nothing]));
        assert!(score([nothing, three]) > score([nothing, nothing]));
        let near = |near| {
            BUILT_IN.score(&PolicyInputs {
                codes: [nothing; 2],
                near,
            })
        };
        assert!(
            near([0, 0]) > near([4, 4]),
            "a stone beside the last ones first"
        );
    }
}
