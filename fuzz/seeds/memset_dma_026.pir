kernel @k(%ids: sbuf f32[2, 512], %one: sbuf bf16[1, 512]) -> (%b: sbuf f32[1, 1024], %c: sbuf f32[1, 512], %d: sbuf f32[2, 512]) {
  GetSequenceBounds { dst = %b, src = %ids }
  GetSequenceBounds { dst = %c, src = %one }
  GetSequenceBounds { dst = %d, src = %one[:, 0:256], engine = pe }
}
