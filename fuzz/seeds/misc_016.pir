kernel @k() {
  NoOp {}
  NoOp { engine = dve }
}
