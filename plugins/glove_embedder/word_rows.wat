;; Cosine similarities of GloVe words for the re-ranker, with WebAssembly SIMD.
(module
  (import "env" "memory" (memory 0))
  ;; out[w * m + q] = (rows[a] · rows[b]) / (norms[b] * norms[a]) (f32), a the q-th of the m
  ;; row numbers (i32) at `queries` and b the w-th of the n at `words`. Each row is `stride`
  ;; int8 values (a multiple of 16, zeros past the dimensions) at `table` + `stride` * row,
  ;; values in -127..127 (so two products summed fit an i16 lane), its length an f32 at
  ;; `norms` + 4 * row.
  (func (export "similarities")
    (param $table i32) (param $stride i32) (param $norms i32) (param $queries i32) (param $m i32)
    (param $words i32) (param $n i32) (param $out i32)
    (local $w i32) (local $wordsEnd i32) (local $q i32) (local $queriesEnd i32)
    (local $a i32) (local $b i32) (local $i i32) (local $bNorm f32)
    (local $sum v128) (local $x v128) (local $y v128)
    (local.set $w (local.get $words))
    (local.set $wordsEnd (i32.add (local.get $words) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $queriesEnd (i32.add (local.get $queries) (i32.shl (local.get $m) (i32.const 2))))
    (block $done
      (loop $next_word
        (br_if $done (i32.ge_u (local.get $w) (local.get $wordsEnd)))
        (local.set $b
          (i32.add (local.get $table) (i32.mul (i32.load (local.get $w)) (local.get $stride))))
        (local.set $bNorm
          (f32.load (i32.add (local.get $norms) (i32.shl (i32.load (local.get $w)) (i32.const 2)))))
        (local.set $q (local.get $queries))
        (block $word_done
          (loop $next_query
            (br_if $word_done (i32.ge_u (local.get $q) (local.get $queriesEnd)))
            (local.set $a
              (i32.add (local.get $table) (i32.mul (i32.load (local.get $q)) (local.get $stride))))
            (local.set $sum (i32x4.splat (i32.const 0)))
            (local.set $i (i32.const 0))
            (block $row_done
              (loop $next_lanes
                (br_if $row_done (i32.ge_u (local.get $i) (local.get $stride)))
                (local.set $x (v128.load (i32.add (local.get $a) (local.get $i))))
                (local.set $y (v128.load (i32.add (local.get $b) (local.get $i))))
                (local.set $sum
                  (i32x4.add (local.get $sum)
                    (i32x4.extadd_pairwise_i16x8_s
                      (i16x8.add (i16x8.extmul_low_i8x16_s (local.get $x) (local.get $y))
                                 (i16x8.extmul_high_i8x16_s (local.get $x) (local.get $y))))))
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $next_lanes)))
            (f32.store (local.get $out)
              (f32.div
                (f32.convert_i32_s
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $sum))
                             (i32x4.extract_lane 1 (local.get $sum)))
                    (i32.add (i32x4.extract_lane 2 (local.get $sum))
                             (i32x4.extract_lane 3 (local.get $sum)))))
                (f32.mul (local.get $bNorm)
                  (f32.load
                    (i32.add (local.get $norms) (i32.shl (i32.load (local.get $q)) (i32.const 2)))))))
            (local.set $out (i32.add (local.get $out) (i32.const 4)))
            (local.set $q (i32.add (local.get $q) (i32.const 4)))
            (br $next_query)))
        (local.set $w (i32.add (local.get $w) (i32.const 4)))
        (br $next_word)))))
