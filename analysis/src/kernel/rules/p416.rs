//! P416: a kernel's peak SBUF or PSUM occupancy exceeds the capacity (SPEC §10.1 [2]), a
//! warning on the kernel's name. The peaks are joined over the kernel's parts
//! (`crate::kernel::resources`) and placed (`crate::kernel::stats`) like every kernel's
//! resources; this reads the placed peaks.

use lower::diag::Code;

use crate::diagnostic::Finding;
use crate::resources::{KernelStats, group};

/// P416 (SPEC §10.1 [2]) of one kernel: a warning on its name for each memory whose peak
/// exceeds the capacity, giving the peak and capacity in bytes and the op where it is
/// reached; related: that op's class name and the declarations of the (up to three)
/// largest tensors live there. Not when a tensor live there exceeds the capacity alone:
/// that is its declaration's P304, and one mistake gives one diagnostic (SPEC §7;
/// docs/decisions.md).
pub fn findings(stats: &KernelStats) -> Vec<Finding> {
    stats
        .peaks()
        .into_iter()
        .filter(|peak| peak.exceeds())
        .filter(|peak| peak.largest.first().is_none_or(|t| t.bytes <= peak.capacity))
        .map(|peak| {
            let memory = peak.memory.name().to_uppercase();
            let at = peak
                .op
                .as_ref()
                .map(|op| format!(" at op #{} `{}`", op.op_id, op.class))
                .unwrap_or_default();
            let mut diagnostic = Finding::new(
                Code::P416,
                stats.name_range,
                format!(
                    "peak {memory} occupancy {} bytes per partition exceeds the capacity of {} bytes{at}",
                    group(peak.bytes),
                    group(peak.capacity)
                ),
            );
            if let Some(op) = &peak.op {
                diagnostic = diagnostic.with_related(
                    op.range,
                    format!("{memory} peak of {} bytes reached here", group(peak.bytes)),
                );
            }
            for tensor in &peak.largest {
                if let Some(declaration) = tensor.declaration {
                    diagnostic = diagnostic.with_related(
                        declaration,
                        format!(
                            "`%{}` is live there: {} bytes per partition",
                            tensor.name,
                            group(tensor.bytes)
                        ),
                    );
                }
            }
            diagnostic
        })
        .collect()
}
