//! Memo values dropped on a background thread ([`DropLater`]), so that salsa's LRU
//! eviction, which runs with the database alone on the thread that changes it (between an
//! open's batches, at every keystroke's new revision), hands the syntax trees, names and
//! lowerings it lets go of to another thread instead of freeing them there.

use std::sync::OnceLock;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

/// A value that is dropped on the dropping thread when it can take it, else where it is
/// dropped (when the thread cannot be started, or already has [`PENDING`] values waiting):
/// what is waiting to be freed stays bounded. Reads as the value (`Deref`); equal when the
/// values are.
///
/// For a memo that is big and evicted often: at 100,000 ops, the evictions of an open were
/// a tenth of a cold `pir check`'s time, spent while the other cores waited
/// (`crate::AnalysisHost::warm`).
#[derive(Debug, Default, PartialEq)]
pub struct DropLater<T: Default + Send + 'static>(T);

/// How many dropped values may wait for the dropping thread.
const PENDING: usize = 64;

/// The dropping thread's queue, started at the first use (`None` if it could not be).
fn dropper() -> Option<&'static SyncSender<Box<dyn Send>>> {
    static QUEUE: OnceLock<Option<SyncSender<Box<dyn Send>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (queue, values) = sync_channel::<Box<dyn Send>>(PENDING);
            std::thread::Builder::new()
                .name("pir-drop".into())
                .spawn(move || {
                    for value in values {
                        drop(value);
                    }
                })
                .ok()
                .map(|_| queue)
        })
        .as_ref()
}

impl<T: Default + Send + 'static> DropLater<T> {
    /// `value`, to be dropped later.
    pub fn new(value: T) -> DropLater<T> {
        DropLater(value)
    }
}

impl<T: Default + Send + 'static> std::ops::Deref for DropLater<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Default + Send + 'static> Drop for DropLater<T> {
    fn drop(&mut self) {
        let value: Box<dyn Send> = Box::new(std::mem::take(&mut self.0));
        if let Some(queue) = dropper() {
            match queue.try_send(value) {
                Ok(()) => {}
                // Dropped here.
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DropLater;
    use std::sync::Arc;

    /// A value dropped later is dropped: on the dropping thread, or here when its queue is
    /// full; either way its memory is let go of.
    #[test]
    fn every_value_is_dropped() {
        let shared = Arc::new(());
        let values: Vec<DropLater<Vec<Arc<()>>>> = (0..1000)
            .map(|_| DropLater::new(vec![shared.clone(); 8]))
            .collect();
        assert_eq!(Arc::strong_count(&shared), 8001);
        assert_eq!(values.iter().map(|v| v.len()).sum::<usize>(), 8000);
        drop(values);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while Arc::strong_count(&shared) > 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(Arc::strong_count(&shared), 1);
    }
}
