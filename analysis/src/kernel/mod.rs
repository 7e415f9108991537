//! Kernels as lists of parts (see [`view`]): every kernel-wide rule ([`rules`]) is one
//! function over its parts' position-free summaries ([`summary`]), whether the kernel fits
//! one chunk (one part) or is cut into many.

pub mod outline;
pub mod resources;
pub mod rules;
pub mod stats;
pub mod summary;
pub mod view;

pub use key::SplitKernel;

mod key {
    // salsa's macros generate constructors and getters without doc comments.
    #![allow(missing_docs)]

    use crate::db::SourceFile;

    /// A kernel cut into chunks, as the salsa key of what is joined over its parts: its
    /// chunks in order, the first holding its header (its last kernel), each other one
    /// holding a part as its first kernel.
    #[salsa::interned(debug)]
    pub struct SplitKernel<'db> {
        #[returns(ref)]
        pub chunks: Vec<SourceFile>,
    }
}

impl<'db> SplitKernel<'db> {
    /// Each part's entry of the per-kernel list `query` gives of its chunk, head first (a
    /// part whose chunk lists nothing there is left out).
    pub fn each<T>(
        self,
        db: &'db dyn crate::db::Db,
        query: fn(&'db dyn crate::db::Db, crate::db::SourceFile) -> &'db Vec<T>,
    ) -> Vec<&'db T> {
        self.chunks(db)
            .iter()
            .enumerate()
            .filter_map(|(i, &chunk)| {
                let slot = if i == 0 {
                    view::KernelSlot::Last
                } else {
                    view::KernelSlot::At(0)
                };
                slot.of(query(db, chunk))
            })
            .collect()
    }
}
