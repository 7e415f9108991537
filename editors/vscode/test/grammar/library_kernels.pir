// SYNTAX TEST "source.penguin-ir" "library_kernels.pir from tests/corpus: strings, records, lists, booleans"
kernel @qwen3_moe_router(%x: hbm bf16[1024, 2048], %w: hbm bf16[2048, 128])
//     ^ entity.name.function.kernel.penguin-ir punctuation.definition.variable.penguin-ir
//      ^^^^^^^^^^^^^^^^ entity.name.function.kernel.penguin-ir
    -> (%router_logits: hbm f32[1024, 128], %expert_index: hbm u32[1024, 8],
        %expert_affinities: hbm bf16[1024, 128]) {
//      ^^^^^^^^^^^^^^^^^^ variable.other.local.penguin-ir
  BIRKernel {  //> BIRKernel Unassigned {"instruction_type": 54, "kernel_name": "RouterTopK"}
//^^^^^^^^^ entity.name.type.op-class.penguin-ir
    kernel_name = "RouterTopK"
//  ^^^^^^^^^^^ variable.other.property.field.penguin-ir - keyword.other.kernel.penguin-ir
//                ^ string.quoted.double.penguin-ir punctuation.definition.string.begin.penguin-ir
//                 ^^^^^^^^^^ string.quoted.double.penguin-ir
//                           ^ string.quoted.double.penguin-ir punctuation.definition.string.end.penguin-ir
    kernel_attrs = { act_fn = "softmax", k = "8", x_hbm_layout = "1", norm_topk_prob = "true" }
//  ^^^^^^^^^^^^ variable.other.property.field.penguin-ir
//                 ^ punctuation.section.braces.begin.penguin-ir - entity.name.type.op-class.penguin-ir
//                   ^^^^^^ variable.other.property.field.penguin-ir
//                             ^^^^^^^ string.quoted.double.penguin-ir
//                                       ^ variable.other.property.field.penguin-ir
//                                            ^ string.quoted.double.penguin-ir - constant.numeric
//                                                ^^^^^^^^^^^^ variable.other.property.field.penguin-ir - string
//                                                                                      ^^^^ string.quoted.double.penguin-ir - constant.language.boolean.penguin-ir
//                                                                                            ^ punctuation.section.braces.end.penguin-ir
    srcs = [%x, %w]
//  ^^^^ variable.other.property.field.penguin-ir
//         ^ punctuation.section.brackets.begin.penguin-ir
//          ^^ variable.other.local.penguin-ir
//            ^ punctuation.separator.comma.penguin-ir
//                ^ punctuation.section.brackets.end.penguin-ir
    dsts = [%router_logits, %expert_index, %expert_affinities]
  }
}

kernel @llama_mlp_cte(%x: hbm bf16[1, 2048, 4096], %ln_w: hbm bf16[1, 4096]) -> (%out: hbm bf16[1, 2048, 4096]) {
  // 1 x 2048 tokens is not below the token-generation threshold, so is_tkg is false.
//                                                                             ^^^^^ comment.line.double-slash.penguin-ir - constant.language.boolean.penguin-ir
  MLPKernel {  //> BIRKernel Unassigned {"instruction_type": 54, "kernel_name": "MLP", "fused_rmsnorm": true}
//^^^^^^^^^ entity.name.type.op-class.penguin-ir
    srcs = [%x, %ln_w]
    dsts = [%out]
    fused_rmsnorm = true
//  ^^^^^^^^^^^^^ variable.other.property.field.penguin-ir
//                  ^^^^ constant.language.boolean.penguin-ir
    norm_type = rms_norm
//              ^^^^^^^^ variable.other.enummember.penguin-ir
    act_fn = silu
//           ^^^^ variable.other.enummember.penguin-ir
    eps = 1e-5
//        ^^^^ constant.numeric.float.penguin-ir
  }
}
