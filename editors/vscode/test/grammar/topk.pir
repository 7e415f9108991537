// SYNTAX TEST "source.penguin-ir" "topk.pir from tests/corpus (K10): loops, slices, -inf, enum values"
// K10: top-k core, folds of max8 + match_replace8.
// <-- comment.line.double-slash.penguin-ir

kernel @topk(%inp: hbm bf16[128, 16384])
// <------ keyword.other.kernel.penguin-ir
//      ^^^^ entity.name.function.kernel.penguin-ir
//                               ^^^^^ constant.numeric.integer.decimal.penguin-ir
    -> (%topk_values: hbm bf16[128, 20], %topk_indices: hbm u32[128, 20]) {
//                                                          ^^^ storage.type.dtype.penguin-ir
//                                       ^^^^^^^^^^^^^ variable.other.local.penguin-ir
  tensor %data     : sbuf bf16[128, 16384]
//^^^^^^ keyword.other.tensor.penguin-ir
//                   ^^^^ storage.modifier.memory.penguin-ir
  tensor %out_vals : sbuf bf16[128, 20]
  tensor %out_inds : sbuf u32[128, 20]
  tensor %val_buf  : sbuf bf16[128, 8]
  tensor %ind_buf  : sbuf u32[128, 8]

  DmaCopyOp { dst = %data, src = %inp }  //> DMACopy DMA
//^^^^^^^^^ entity.name.type.op-class.penguin-ir
//                                       ^^^ comment.line.double-slash.annotation.penguin-ir punctuation.definition.comment.penguin-ir
  for %f in 0..2 {
//^^^ keyword.control.loop.penguin-ir
//    ^^ variable.other.local.penguin-ir
//       ^^ keyword.control.loop.penguin-ir
//          ^ constant.numeric.integer.decimal.penguin-ir
//           ^^ keyword.operator.range.penguin-ir
//             ^ constant.numeric.integer.decimal.penguin-ir
//               ^ punctuation.section.braces.begin.penguin-ir
    SundaMax8 { dst = %out_vals[:, %f*8 : %f*8 + 8], src = %data }  //> Max DVE {"instruction_type": 88}
//  ^^^^^^^^^ entity.name.type.op-class.penguin-ir
//              ^^^ variable.other.property.field.penguin-ir
//                    ^^^^^^^^^ variable.other.local.penguin-ir
//                             ^ punctuation.section.brackets.begin.penguin-ir
//                              ^ punctuation.separator.colon.penguin-ir
//                                 ^^ variable.other.local.penguin-ir
//                                   ^ keyword.operator.arithmetic.penguin-ir
//                                    ^ constant.numeric.integer.decimal.penguin-ir
//                                             ^ keyword.operator.arithmetic.penguin-ir
//                                                ^ punctuation.section.brackets.end.penguin-ir
//                                                   ^^^ variable.other.property.field.penguin-ir
//                                                                                                   ^^ comment.line.double-slash.annotation.penguin-ir meta.annotation.penguin-ir - constant.numeric
    MaxIndexAndMatchReplace {  //> MaxIndexAndMatchReplace DVE {"instruction_type": 91, "imm_value": "-inf"}
//  ^^^^^^^^^^^^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
      dst = %data
//    ^^^ variable.other.property.field.penguin-ir
      dst_idx = %out_inds[:, %f*8 : %f*8 + 8]
//    ^^^^^^^ variable.other.property.field.penguin-ir
//              ^^^^^^^^^ variable.other.local.penguin-ir
      src = %data
      vals = %out_vals[:, %f*8 : %f*8 + 8]
//    ^^^^ variable.other.property.field.penguin-ir
      imm = -inf
//    ^^^ variable.other.property.field.penguin-ir
//        ^ keyword.operator.assignment.penguin-ir
//          ^ keyword.operator.arithmetic.penguin-ir
//           ^^^ constant.numeric.float.named.penguin-ir
    }
//  ^ punctuation.section.braces.end.penguin-ir
  }
  SundaMax8 { dst = %val_buf, src = %data }  //> Max DVE {"instruction_type": 88}
  SundaMaxIndex8 { dst = %ind_buf, max_vals = %val_buf, src = %data }  //> MaxIndex DVE {"instruction_type": 89}
//^^^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
//                                 ^^^^^^^^ variable.other.property.field.penguin-ir
  TensorCopyOp { dst = %out_vals[:, 16:20], src = %val_buf[:, 0:4], engine = act }  //> TensorCopy Activation
//                                  ^^ constant.numeric.integer.decimal.penguin-ir
//                                    ^ punctuation.separator.colon.penguin-ir
//                                     ^^ constant.numeric.integer.decimal.penguin-ir
//                                                                  ^^^^^^ variable.other.property.field.penguin-ir
//                                                                           ^^^ variable.other.enummember.penguin-ir
  TensorCopyOp { dst = %out_inds[:, 16:20], src = %ind_buf[:, 0:4], engine = act }  //> TensorCopy Activation
  DmaCopyOp { dst = %topk_values, src = %out_vals }  //> DMACopy DMA
  DmaCopyOp { dst = %topk_indices, src = %out_inds }  //> DMACopy DMA
}
// <- punctuation.section.braces.end.penguin-ir
