//! The one way this crate runs work on every core: each thread takes the next job left
//! (jobs differ in cost; a fixed share per thread leaves a core idle at the end). The
//! host's batches keep their threads for a whole run ([`crate::AnalysisHost`]); a single
//! run of jobs, such as reading a new text's statements to cut it, uses [`on_every_core`].

use std::sync::atomic::{AtomicUsize, Ordering};

/// The most threads [`on_every_core`] starts (the machine's cores, at most 8).
fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8)
}

/// The next job of `count` for a thread to take, from the shared counter `next`.
pub(crate) fn take_next(next: &AtomicUsize, count: usize) -> Option<usize> {
    let i = next.fetch_add(1, Ordering::Relaxed);
    (i < count).then_some(i)
}

/// `job(i)` for every `i` in `0..count`, on every core (this thread among them), each
/// thread taking the next job left; the results in job order. A job that panics leaves
/// `R::default()` at its place.
pub(crate) fn on_every_core<R: Send + Default>(
    count: usize,
    job: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        while let Some(i) = take_next(&next, count) {
            done.push((i, job(i)));
        }
        done
    };
    let mut out: Vec<R> = std::iter::repeat_with(R::default).take(count).collect();
    let helpers = threads().min(count).saturating_sub(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..helpers).map(|_| scope.spawn(work)).collect();
        let mut results = work();
        for handle in handles {
            results.extend(handle.join().unwrap_or_default());
        }
        for (i, result) in results {
            if let Some(slot) = out.get_mut(i) {
                *slot = result;
            }
        }
    });
    out
}
