;; The dot products of the encrypted index's search: out[j] = q · rows[j] for the n rows of d
;; floats (d a multiple of 4) starting at `rows`, four lanes at a time (WebAssembly SIMD).
(module
  (import "env" "memory" (memory 0))
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
)
