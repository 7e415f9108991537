// SYNTAX TEST "source.penguin-ir" "matmul_basic.pir from tests/corpus (K1)"
// K1: matmul, basic (64 x 128 x 512).
// <-- comment.line.double-slash.penguin-ir punctuation.definition.comment.penguin-ir
//  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ comment.line.double-slash.penguin-ir - constant.numeric

kernel @matmul_basic(%lhsT: hbm bf16[128, 64], %rhs: hbm bf16[128, 512])
// <------ keyword.other.kernel.penguin-ir
//     ^ entity.name.function.kernel.penguin-ir punctuation.definition.variable.penguin-ir
//      ^^^^^^^^^^^^ entity.name.function.kernel.penguin-ir
//                  ^ punctuation.section.parens.begin.penguin-ir
//                   ^ variable.other.local.penguin-ir punctuation.definition.variable.penguin-ir
//                    ^^^^ variable.other.local.penguin-ir
//                        ^ punctuation.separator.colon.penguin-ir
//                          ^^^ storage.modifier.memory.penguin-ir
//                              ^^^^ storage.type.dtype.penguin-ir
//                                  ^ punctuation.section.brackets.begin.penguin-ir
//                                   ^^^ constant.numeric.integer.decimal.penguin-ir
//                                      ^ punctuation.separator.comma.penguin-ir
//                                        ^^ constant.numeric.integer.decimal.penguin-ir
//                                          ^ punctuation.section.brackets.end.penguin-ir
//                                                                     ^ punctuation.section.parens.end.penguin-ir
    -> (%result: hbm bf16[64, 512]) {
//  ^^ keyword.operator.arrow.penguin-ir
//      ^^^^^^^ variable.other.local.penguin-ir
//                                  ^ punctuation.section.braces.begin.penguin-ir
  tensor %lhs_tile    : sbuf bf16[128, 64]
//^^^^^^ keyword.other.tensor.penguin-ir
//       ^^^^^^^^^ variable.other.local.penguin-ir
//                    ^ punctuation.separator.colon.penguin-ir
//                      ^^^^ storage.modifier.memory.penguin-ir
//                           ^^^^ storage.type.dtype.penguin-ir
  tensor %rhs_tile    : sbuf bf16[128, 512]
  tensor %result_psum : psum f32[64, 512]
//                      ^^^^ storage.modifier.memory.penguin-ir
//                           ^^^ storage.type.dtype.penguin-ir
  tensor %result_sbuf : sbuf bf16[64, 512]

  DmaCopyOp { dst = %lhs_tile, src = %lhsT }  //> DMACopy DMA {"mode": "Copy"}
//^^^^^^^^^ entity.name.type.op-class.penguin-ir
//          ^ punctuation.section.braces.begin.penguin-ir
//            ^^^ variable.other.property.field.penguin-ir
//                ^ keyword.operator.assignment.penguin-ir
//                  ^^^^^^^^^ variable.other.local.penguin-ir
//                           ^ punctuation.separator.comma.penguin-ir
//                             ^^^ variable.other.property.field.penguin-ir
//                                         ^ punctuation.section.braces.end.penguin-ir
//                                            ^^^ comment.line.double-slash.annotation.penguin-ir punctuation.definition.comment.penguin-ir
//                                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ comment.line.double-slash.annotation.penguin-ir meta.annotation.penguin-ir
  DmaCopyOp { dst = %rhs_tile, src = %rhs }  //> DMACopy DMA {"mode": "Copy"}
  // result_psum = lhs_tile.T @ rhs_tile, every flag at its default.
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ comment.line.double-slash.penguin-ir
//   ^^^^^^^^^^^ - variable.other.property.field.penguin-ir
  MatMulOp {  //> Matmult PE
//^^^^^^^^ entity.name.type.op-class.penguin-ir
//         ^ punctuation.section.braces.begin.penguin-ir
    dst = %result_psum
//  ^^^ variable.other.property.field.penguin-ir
//        ^^^^^^^^^^^^ variable.other.local.penguin-ir
    stationary = %lhs_tile
//  ^^^^^^^^^^ variable.other.property.field.penguin-ir
    moving = %rhs_tile
  }
//^ punctuation.section.braces.end.penguin-ir
  // PSUM -> SBUF, casting f32 to bf16, then SBUF -> HBM.
//        ^^ comment.line.double-slash.penguin-ir - keyword.operator.arrow.penguin-ir
//                      ^^^ - storage.type.dtype.penguin-ir
  TensorCopyOp { dst = %result_sbuf, src = %result_psum }  //> TensorCopy DVE
//^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
  DmaCopyOp { dst = %result, src = %result_sbuf }  //> DMACopy DMA {"mode": "Copy"}
}
// <- punctuation.section.braces.end.penguin-ir
