;; BLAKE2b (RFC 7693) over bytes already in memory: `hash(length, outLength, keyLength)` hashes
;; the `length` bytes at offset 1024 (for a keyed hash, the key zero-padded to a 128-byte block,
;; then the message), zero-padded by the caller to a whole number of blocks (at least one), and
;; leaves the digest in bytes 0 .. outLength of memory (the state, little-endian).
;;
;; Memory: 0 the state h[8]; 64 the working vector v[16]; 192 the message schedule SIGMA (12
;; rounds of 16 byte indexes); 384 the initialisation vector; 1024 the input.
(module
  (memory (export "memory") 1)
  (data (i32.const 192)
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\0e\0a\04\08\09\0f\0d\06\01\0c\00\02\0b\07\05\03"
    "\0b\08\0c\00\05\02\0f\0d\0a\0e\03\06\07\01\09\04"
    "\07\09\03\01\0d\0c\0b\0e\02\06\05\0a\04\00\0f\08"
    "\09\00\05\07\02\04\0a\0f\0e\01\0b\0c\06\08\03\0d"
    "\02\0c\06\0a\00\0b\08\03\04\0d\07\05\0f\0e\01\09"
    "\0c\05\01\0f\0e\0d\04\0a\00\07\06\03\09\02\08\0b"
    "\0d\0b\07\0e\0c\01\03\09\05\00\0f\04\08\06\02\0a"
    "\06\0f\0e\09\0b\03\00\08\0c\02\0d\07\01\04\0a\05"
    "\0a\02\08\04\07\06\01\05\0f\0b\09\0e\03\0c\0d\00"
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\0e\0a\04\08\09\0f\0d\06\01\0c\00\02\0b\07\05\03")
  (data (i32.const 384)
    "\08\c9\bc\f3\67\e6\09\6a" "\3b\a7\ca\84\85\ae\67\bb"
    "\2b\f8\94\fe\72\f3\6e\3c" "\f1\36\1d\5f\3a\f5\4f\a5"
    "\d1\82\e6\ad\7f\52\0e\51" "\1f\6c\3e\2b\8c\68\05\9b"
    "\6b\bd\41\fb\ab\d9\83\1f" "\79\21\7e\13\19\cd\e0\5b")

  ;; The mixing function G on v[a], v[b], v[c], v[d] (byte offsets) with message words x and y.
  (func $g (param $a i32) (param $b i32) (param $c i32) (param $d i32) (param $x i64) (param $y i64)
    (local $va i64) (local $vb i64) (local $vc i64) (local $vd i64)
    (local.set $va (i64.add (i64.add (i64.load (local.get $a)) (i64.load (local.get $b))) (local.get $x)))
    (local.set $vd (i64.rotr (i64.xor (i64.load (local.get $d)) (local.get $va)) (i64.const 32)))
    (local.set $vc (i64.add (i64.load (local.get $c)) (local.get $vd)))
    (local.set $vb (i64.rotr (i64.xor (i64.load (local.get $b)) (local.get $vc)) (i64.const 24)))
    (local.set $va (i64.add (i64.add (local.get $va) (local.get $vb)) (local.get $y)))
    (local.set $vd (i64.rotr (i64.xor (local.get $vd) (local.get $va)) (i64.const 16)))
    (local.set $vc (i64.add (local.get $vc) (local.get $vd)))
    (local.set $vb (i64.rotr (i64.xor (local.get $vb) (local.get $vc)) (i64.const 63)))
    (i64.store (local.get $a) (local.get $va))
    (i64.store (local.get $b) (local.get $vb))
    (i64.store (local.get $c) (local.get $vc))
    (i64.store (local.get $d) (local.get $vd)))

  ;; Message word SIGMA[round][i] of the block at $m.
  (func $word (param $m i32) (param $sigma i32) (param $i i32) (result i64)
    (i64.load (i32.add (local.get $m)
      (i32.shl (i32.load8_u (i32.add (local.get $sigma) (local.get $i))) (i32.const 3)))))

  ;; Compresses the block at $m into the state; $t bytes hashed so far; $last: the final block.
  (func $compress (param $m i32) (param $t i64) (param $last i32)
    (local $i i32) (local $sigma i32)
    (memory.copy (i32.const 64) (i32.const 0) (i32.const 64))
    (memory.copy (i32.const 128) (i32.const 384) (i32.const 64))
    (i64.store (i32.const 160) (i64.xor (i64.load (i32.const 160)) (local.get $t)))
    (if (local.get $last)
      (then (i64.store (i32.const 176) (i64.xor (i64.load (i32.const 176)) (i64.const -1)))))
    (local.set $sigma (i32.const 192))
    (loop $rounds
      (call $g (i32.const 64) (i32.const 96) (i32.const 128) (i32.const 160)
        (call $word (local.get $m) (local.get $sigma) (i32.const 0))
        (call $word (local.get $m) (local.get $sigma) (i32.const 1)))
      (call $g (i32.const 72) (i32.const 104) (i32.const 136) (i32.const 168)
        (call $word (local.get $m) (local.get $sigma) (i32.const 2))
        (call $word (local.get $m) (local.get $sigma) (i32.const 3)))
      (call $g (i32.const 80) (i32.const 112) (i32.const 144) (i32.const 176)
        (call $word (local.get $m) (local.get $sigma) (i32.const 4))
        (call $word (local.get $m) (local.get $sigma) (i32.const 5)))
      (call $g (i32.const 88) (i32.const 120) (i32.const 152) (i32.const 184)
        (call $word (local.get $m) (local.get $sigma) (i32.const 6))
        (call $word (local.get $m) (local.get $sigma) (i32.const 7)))
      (call $g (i32.const 64) (i32.const 104) (i32.const 144) (i32.const 184)
        (call $word (local.get $m) (local.get $sigma) (i32.const 8))
        (call $word (local.get $m) (local.get $sigma) (i32.const 9)))
      (call $g (i32.const 72) (i32.const 112) (i32.const 152) (i32.const 160)
        (call $word (local.get $m) (local.get $sigma) (i32.const 10))
        (call $word (local.get $m) (local.get $sigma) (i32.const 11)))
      (call $g (i32.const 80) (i32.const 120) (i32.const 128) (i32.const 168)
        (call $word (local.get $m) (local.get $sigma) (i32.const 12))
        (call $word (local.get $m) (local.get $sigma) (i32.const 13)))
      (call $g (i32.const 88) (i32.const 96) (i32.const 136) (i32.const 176)
        (call $word (local.get $m) (local.get $sigma) (i32.const 14))
        (call $word (local.get $m) (local.get $sigma) (i32.const 15)))
      (local.set $sigma (i32.add (local.get $sigma) (i32.const 16)))
      (br_if $rounds (i32.lt_u (local.get $sigma) (i32.const 384))))
    (loop $fold
      (i64.store (local.get $i) (i64.xor (i64.xor (i64.load (local.get $i))
        (i64.load (i32.add (local.get $i) (i32.const 64))))
        (i64.load (i32.add (local.get $i) (i32.const 128)))))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br_if $fold (i32.lt_u (local.get $i) (i32.const 64)))))

  (func (export "hash") (param $length i32) (param $out i32) (param $keyLength i32)
    (local $at i32) (local $end i32)
    (memory.copy (i32.const 0) (i32.const 384) (i32.const 64))
    (i64.store (i32.const 0) (i64.xor (i64.load (i32.const 0))
      (i64.extend_i32_u (i32.or (i32.const 0x01010000)
        (i32.or (i32.shl (local.get $keyLength) (i32.const 8)) (local.get $out))))))
    ;; Every block but the last, then the last with the count of bytes actually hashed.
    (local.set $at (i32.const 1024))
    (local.set $end (i32.add (i32.const 1024)
      (i32.shl (i32.shr_u (i32.sub (local.get $length) (i32.const 1)) (i32.const 7)) (i32.const 7))))
    (if (i32.eqz (local.get $length)) (then (local.set $end (i32.const 1024))))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (call $compress (local.get $at)
          (i64.extend_i32_u (i32.sub (i32.add (local.get $at) (i32.const 128)) (i32.const 1024)))
          (i32.const 0))
        (local.set $at (i32.add (local.get $at) (i32.const 128)))
        (br $blocks)))
    (call $compress (local.get $at) (i64.extend_i32_u (local.get $length)) (i32.const 1))))
