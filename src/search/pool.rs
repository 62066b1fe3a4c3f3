//! What the threads of one Lazy SMP search share besides the table: the deepest iteration
//! any of them has completed. A thread still searching that depth abandons it and goes
//! deeper, and the reporting thread reports that iteration as its own, so the pool's
//! depth is the depth of its fastest thread and the best move comes from the deepest
//! completed iteration.

use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::Mutex;

use super::score::Score;

/// An iteration one thread completed: depth, value and principal variation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletedIteration<M> {
    /// Depth searched.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Value of the root.
    pub score: Score,
    /// Principal variation, best move first.
    pub pv: Vec<M>,
}

/// The deepest completed iteration of a pool of threads searching one root.
#[derive(Debug)]
pub struct SharedIterations<M> {
    depth: AtomicU32,
    deepest: Mutex<Option<CompletedIteration<M>>>,
}

impl<M> Default for SharedIterations<M> {
    fn default() -> Self {
        SharedIterations {
            depth: AtomicU32::new(0),
            deepest: Mutex::new(None),
        }
    }
}

impl<M: Clone> SharedIterations<M> {
    /// Depth of the deepest completed iteration (0: none yet). Cheap: one atomic load.
    pub fn depth(&self) -> u32 {
        self.depth.load(Ordering::Acquire)
    }

    /// Records `iteration` if it is deeper than every one recorded so far.
    pub fn publish(&self, iteration: CompletedIteration<M>) {
        if iteration.pv.is_empty() {
            return;
        }
        let mut deepest = self.deepest.lock();
        if deepest.as_ref().map_or(true, |d| iteration.depth > d.depth) {
            self.depth.store(iteration.depth, Ordering::Release);
            *deepest = Some(iteration);
        }
    }

    /// The deepest completed iteration, if any.
    pub fn deepest(&self) -> Option<CompletedIteration<M>> {
        self.deepest.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iteration(depth: u32, score: Score) -> CompletedIteration<u8> {
        CompletedIteration {
            depth,
            seldepth: depth,
            score,
            pv: vec![depth as u8],
        }
    }

    #[test]
    fn keeps_the_deepest_iteration() {
        let shared = SharedIterations::default();
        assert_eq!(shared.depth(), 0);
        assert_eq!(shared.deepest(), None);
        shared.publish(iteration(3, 10));
        shared.publish(iteration(5, 20));
        shared.publish(iteration(4, 30));
        shared.publish(iteration(5, 40));
        assert_eq!(shared.depth(), 5);
        assert_eq!(shared.deepest(), Some(iteration(5, 20)));
    }

    #[test]
    fn ignores_iterations_without_a_move() {
        let shared = SharedIterations::default();
        shared.publish(CompletedIteration::<u8> {
            depth: 7,
            seldepth: 7,
            score: 0,
            pv: Vec::new(),
        });
        assert_eq!(shared.depth(), 0);
    }
}
