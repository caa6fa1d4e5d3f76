;; The dot products of the encrypted index's search, with WebAssembly SIMD.
(module
  (import "env" "memory" (memory 0))
  ;; out[j] = q · rows[j] (f32) for the n rows of d floats (d a multiple of 4) starting at `rows`.
  (func (export "dots") (param $q i32) (param $rows i32) (param $n i32) (param $d i32) (param $out i32)
    (local $row i32) (local $end i32) (local $i i32) (local $bytes i32) (local $sum v128)
    (local.set $bytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $row (local.get $rows))
    (local.set $end (i32.add (local.get $rows) (i32.mul (local.get $n) (local.get $bytes))))
    (block $done
      (loop $next_row
        (br_if $done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $sum (f32x4.splat (f32.const 0)))
        (local.set $i (i32.const 0))
        (block $row_done
          (loop $next_lanes
            (br_if $row_done (i32.ge_u (local.get $i) (local.get $bytes)))
            (local.set $sum
              (f32x4.add (local.get $sum)
                (f32x4.mul (v128.load (i32.add (local.get $q) (local.get $i)))
                           (v128.load (i32.add (local.get $row) (local.get $i))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $next_lanes)))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
            (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (br $next_row))))
  ;; out[j] = (q · codes[j] − offset) * scales[j] * scale (f32) for the n rows of `stride`
  ;; codes starting at `codes` (`stride` a multiple of 64: four times 16 codes a turn), with one
  ;; f32 scale a row at `scales`. The query's codes are in -127..127; a row's are its 7-bit codes
  ;; plus 64, in 0..127, as relaxed SIMD's dot product of i8 by i7 lanes wants them, and
  ;; `offset` is 64 times the sum of the query's codes. Rows go 4 at a time, sharing the query's
  ;; loads; the last n mod 4 go one by one.
  (func (export "codeDots")
    (param $q i32) (param $codes i32) (param $scales i32) (param $n i32) (param $stride i32)
    (param $scale f32) (param $offset i32) (param $out i32)
    (local $row i32) (local $full i32) (local $end i32) (local $i i32) (local $lanes v128)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local.set $row (local.get $codes))
    (local.set $full (i32.add (local.get $codes)
      (i32.mul (i32.sub (local.get $n) (i32.rem_u (local.get $n) (i32.const 4))) (local.get $stride))))
    (local.set $end (i32.add (local.get $codes) (i32.mul (local.get $n) (local.get $stride))))
    (block $done
      (loop $next_rows
        (br_if $done (i32.ge_u (local.get $row) (local.get $full)))
        (local.set $s0 (i32x4.splat (i32.const 0)))
        (local.set $s1 (i32x4.splat (i32.const 0)))
        (local.set $s2 (i32x4.splat (i32.const 0)))
        (local.set $s3 (i32x4.splat (i32.const 0)))
        (local.set $i (i32.const 0))
        (block $rows_done
          (loop $next_lanes
            (br_if $rows_done (i32.ge_u (local.get $i) (local.get $stride)))
            (local.set $lanes (v128.load (i32.add (local.get $q) (local.get $i))))
            (local.set $s0 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load (i32.add (local.get $row) (local.get $i))) (local.get $s0)))
            (local.set $s1 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 1))) (local.get $i))) (local.get $s1)))
            (local.set $s2 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 2))) (local.get $i))) (local.get $s2)))
            (local.set $s3 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 3))) (local.get $i))) (local.get $s3)))
            (local.set $lanes (v128.load offset=16 (i32.add (local.get $q) (local.get $i))))
            (local.set $s0 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=16 (i32.add (local.get $row) (local.get $i))) (local.get $s0)))
            (local.set $s1 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=16 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 1))) (local.get $i))) (local.get $s1)))
            (local.set $s2 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=16 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 2))) (local.get $i))) (local.get $s2)))
            (local.set $s3 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=16 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 3))) (local.get $i))) (local.get $s3)))
            (local.set $lanes (v128.load offset=32 (i32.add (local.get $q) (local.get $i))))
            (local.set $s0 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=32 (i32.add (local.get $row) (local.get $i))) (local.get $s0)))
            (local.set $s1 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=32 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 1))) (local.get $i))) (local.get $s1)))
            (local.set $s2 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=32 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 2))) (local.get $i))) (local.get $s2)))
            (local.set $s3 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=32 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 3))) (local.get $i))) (local.get $s3)))
            (local.set $lanes (v128.load offset=48 (i32.add (local.get $q) (local.get $i))))
            (local.set $s0 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=48 (i32.add (local.get $row) (local.get $i))) (local.get $s0)))
            (local.set $s1 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=48 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 1))) (local.get $i))) (local.get $s1)))
            (local.set $s2 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=48 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 2))) (local.get $i))) (local.get $s2)))
            (local.set $s3 (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get $lanes)
              (v128.load offset=48 (i32.add (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 3))) (local.get $i))) (local.get $s3)))
            (local.set $i (i32.add (local.get $i) (i32.const 64)))
            (br $next_lanes)))
        (f32.store offset=0 (local.get $out)
          (call $scaled (local.get $s0) (local.get $offset) (i32.add (local.get $scales) (i32.const 0)) (local.get $scale)))
        (f32.store offset=4 (local.get $out)
          (call $scaled (local.get $s1) (local.get $offset) (i32.add (local.get $scales) (i32.const 4)) (local.get $scale)))
        (f32.store offset=8 (local.get $out)
          (call $scaled (local.get $s2) (local.get $offset) (i32.add (local.get $scales) (i32.const 8)) (local.get $scale)))
        (f32.store offset=12 (local.get $out)
          (call $scaled (local.get $s3) (local.get $offset) (i32.add (local.get $scales) (i32.const 12)) (local.get $scale)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $scales (i32.add (local.get $scales) (i32.const 16)))
        (local.set $row (i32.add (local.get $row) (i32.mul (local.get $stride) (i32.const 4))))
        (br $next_rows)))
    (block $tail_done
      (loop $next_row
        (br_if $tail_done (i32.ge_u (local.get $row) (local.get $end)))
        (local.set $s0 (i32x4.splat (i32.const 0)))
        (local.set $i (i32.const 0))
        (block $row_done
          (loop $next_lanes
            (br_if $row_done (i32.ge_u (local.get $i) (local.get $stride)))
            (local.set $s0 (i32x4.relaxed_dot_i8x16_i7x16_add_s
              (v128.load (i32.add (local.get $q) (local.get $i)))
              (v128.load (i32.add (local.get $row) (local.get $i))) (local.get $s0)))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $next_lanes)))
        (f32.store (local.get $out)
          (call $scaled (local.get $s0) (local.get $offset) (local.get $scales) (local.get $scale)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $scales (i32.add (local.get $scales) (i32.const 4)))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (br $next_row))))
  ;; (the sum of `sum`'s lanes − offset) × the f32 at `scales` × scale
  (func $scaled (param $sum v128) (param $offset i32) (param $scales i32) (param $scale f32) (result f32)
    (f32.mul
      (f32.mul
        (f32.convert_i32_s
          (i32.sub
            (i32.add
              (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
              (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum))))
            (local.get $offset)))
        (f32.load (local.get $scales)))
      (local.get $scale)))
)
