kernel @k(%ids: sbuf f32[1, 512]) -> (%b: sbuf f32[1, 2, 512], %c: sbuf i32[1, 1024]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %ids, engine = dve }
}
