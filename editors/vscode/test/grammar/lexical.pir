// SYNTAX TEST "source.penguin-ir" "lexical structure of SPEC §2 that the corpus does not show"
// Every token class of SPEC §2 that the corpus does not use (predicates, bytes, registers, ...).
kernel @lexical(%a: hbm f8e4m3fn[128, 4], %b: psum f8e5m2x4[1]) -> () {
// <------ keyword.other.kernel.penguin-ir
//                      ^^^^^^^^ storage.type.dtype.penguin-ir
//                                            ^^^^ storage.modifier.memory.penguin-ir
//                                                 ^^^^^^^^ storage.type.dtype.penguin-ir
//                                                              ^^ keyword.operator.arrow.penguin-ir
  reg %r : i32
//^^^ keyword.other.reg.penguin-ir - storage.modifier.memory.penguin-ir
//    ^^ variable.other.local.penguin-ir
//         ^^^ storage.type.dtype.penguin-ir
  tensor %t : reg i32[1]
//            ^^^ storage.modifier.memory.penguin-ir - keyword.other.reg.penguin-ir
  tensor %h : hbm f4e2m1fnx4[2]
//            ^^^ storage.modifier.memory.penguin-ir
//                ^^^^^^^^^^ storage.type.dtype.penguin-ir
  tensor %d : sbuf f32 f32r tf32 bf16 f16 f8e4m3 f8e5m2 f8e3m4 f8e4m3fn f8e5m2x4 f8e4m3fnx4 f4e2m1fnx4 e8m0 i8 u8 i16 u16 i32 u32
//                     ^^^^ storage.type.dtype.penguin-ir
//                          ^^^^ storage.type.dtype.penguin-ir
//                               ^^^^ storage.type.dtype.penguin-ir
//                                                      ^^^^^^ storage.type.dtype.penguin-ir
//                                                             ^^^^^^^^ storage.type.dtype.penguin-ir
//                                                                      ^^^^^^^^ storage.type.dtype.penguin-ir
//                                                                               ^^^^^^^^^^ storage.type.dtype.penguin-ir
//                                                                                          ^^^^^^^^^^ storage.type.dtype.penguin-ir
//                                                                                                     ^^^^ storage.type.dtype.penguin-ir
//                                                                                                                        ^^^ storage.type.dtype.penguin-ir
//                                                                                                                            ^^^ storage.type.dtype.penguin-ir
//                 ^^^ storage.type.dtype.penguin-ir
//                                ^^^ storage.type.dtype.penguin-ir
//                                        ^^^^^^ storage.type.dtype.penguin-ir
//                                               ^^^^^^ storage.type.dtype.penguin-ir
//                                                                                                          ^^ storage.type.dtype.penguin-ir
//                                                                                                             ^^ storage.type.dtype.penguin-ir
//                                                                                                                ^^^ storage.type.dtype.penguin-ir
//                                                                                                                    ^^^ storage.type.dtype.penguin-ir
  for %i in 0..8 step 2 {
//               ^^^^ keyword.control.loop.penguin-ir
//          ^ constant.numeric.integer.decimal.penguin-ir
//           ^^ keyword.operator.range.penguin-ir
//             ^ constant.numeric.integer.decimal.penguin-ir
    MemsetOp #12 { dst = %t, value = 1_000, bits = 0x3f80, big = 0xFF_FF, f = 1.5, e = 1e-6, g = 2.5E+3, n = nan, m = -inf }
//  ^^^^^^^^ entity.name.type.op-class.penguin-ir
//           ^^^ constant.other.op-id.penguin-ir
//                                   ^^^^^ constant.numeric.integer.decimal.penguin-ir
//                                                 ^^^^^^ constant.numeric.integer.hexadecimal.penguin-ir
//                                                               ^^^^^^^ constant.numeric.integer.hexadecimal.penguin-ir
//                                                                            ^^^ constant.numeric.float.penguin-ir
//                                                                                     ^^^^ constant.numeric.float.penguin-ir
//                                                                                               ^^^^^^ constant.numeric.float.penguin-ir
//                                                                                                           ^^^ constant.numeric.float.named.penguin-ir
//                                                                                                                    ^ keyword.operator.arithmetic.penguin-ir
//                                                                                                                     ^^^ constant.numeric.float.named.penguin-ir
    AffSelTensorScalarOp {
//  ^^^^^^^^^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
      dst = %t[0:%i + 1, :]
//    ^^^ variable.other.property.field.penguin-ir
//               ^^ variable.other.local.penguin-ir
//                  ^ keyword.operator.arithmetic.penguin-ir
      predicates = [$0 - $1 >= 0, $1 > 2, $0 <= 3, $1 < 4, $0 == 5, $1 != 6]
//                  ^ punctuation.definition.variable.penguin-ir
//                  ^^ variable.language.dim.penguin-ir
//                       ^^ variable.language.dim.penguin-ir
//                          ^^ keyword.operator.comparison.penguin-ir
//                                   ^ keyword.operator.comparison.penguin-ir
//                                           ^^ keyword.operator.comparison.penguin-ir
//                                                    ^ keyword.operator.comparison.penguin-ir
//                                                            ^^ keyword.operator.comparison.penguin-ir
//                                                                     ^^ keyword.operator.comparison.penguin-ir
      fill_value = -1.0e+2
//    ^^^^^^^^^^ variable.other.property.field.penguin-ir
//                  ^^^^^^ constant.numeric.float.penguin-ir
    }
    InlineASMBytesInst #3 { engine = pool, asm_bytes = x"de ad be ef", sync_type = data_path, latency_estimate = 4 }
//  ^^^^^^^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
//                     ^^ constant.other.op-id.penguin-ir
//                                   ^^^^ variable.other.enummember.penguin-ir
//                                                     ^ string.quoted.double.bytes.penguin-ir storage.type.string.bytes.penguin-ir
//                                                      ^ string.quoted.double.bytes.penguin-ir punctuation.definition.string.begin.penguin-ir
//                                                       ^^ string.quoted.double.bytes.penguin-ir constant.numeric.hex.bytes.penguin-ir
//                                                                ^^ string.quoted.double.bytes.penguin-ir constant.numeric.hex.bytes.penguin-ir
    InlineASMInst { engine = dve, opcode = "a\"b\\c\n\t\u{1F600}", operands = [full(%a), tile(%t[0:1, :])] }
//                                         ^ string.quoted.double.penguin-ir punctuation.definition.string.begin.penguin-ir
//                                           ^^ string.quoted.double.penguin-ir constant.character.escape.penguin-ir
//                                              ^^ string.quoted.double.penguin-ir constant.character.escape.penguin-ir
//                                                 ^^ string.quoted.double.penguin-ir constant.character.escape.penguin-ir
//                                                   ^^ string.quoted.double.penguin-ir constant.character.escape.penguin-ir
//                                                     ^^^^^^^^^ string.quoted.double.penguin-ir constant.character.escape.penguin-ir
//                                                              ^ string.quoted.double.penguin-ir punctuation.definition.string.end.penguin-ir
//                                                                             ^^^^ support.function.access-kind.penguin-ir
//                                                                                 ^ punctuation.section.parens.begin.penguin-ir
//                                                                                       ^^^^ support.function.access-kind.penguin-ir
//                                                                                    ^ punctuation.section.parens.end.penguin-ir
    IndexValueInst { dst = %t, step = 1, base = 0 }
//                             ^^^^ variable.other.property.field.penguin-ir - keyword.control.loop.penguin-ir
    TensorTensorOp{dst=%t,src0=%t,src1=%t,op=add}
//  ^^^^^^^^^^^^^^ entity.name.type.op-class.penguin-ir
//                ^ punctuation.section.braces.begin.penguin-ir
//                 ^^^ variable.other.property.field.penguin-ir
//                    ^ keyword.operator.assignment.penguin-ir
//                        ^^^^ variable.other.property.field.penguin-ir
//                                ^^^^ variable.other.property.field.penguin-ir
//                       ^ punctuation.separator.comma.penguin-ir
    NoOp { }  // trailing comment
//  ^^^^ entity.name.type.op-class.penguin-ir
//            ^^ comment.line.double-slash.penguin-ir punctuation.definition.comment.penguin-ir
  }
}
