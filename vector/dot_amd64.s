//go:build amd64 && !purego

#include "textflag.h"

// Inner-product kernels for dotRowsAVX2 and dotRowsAVX512 (see
// dot_amd64.go).
//
// Register use in both kernels:
//	DI  next out element        CX  rows left
//	SI  row 0 of the block      DX  query
//	R12, R13, AX rows 1-3       BX  byte offset in the row
//	R8  row stride (bytes)      R9  bytes covered by full steps
//	R10 non-zero when one half step follows
//	R11 number of elements in the masked tail

// tailmask<>: eight all-ones words then eight zero words; the eight words
// starting at word 8-t form a VMASKMOVPS mask selecting t elements.
DATA tailmask<>+0(SB)/8, $0xffffffffffffffff
DATA tailmask<>+8(SB)/8, $0xffffffffffffffff
DATA tailmask<>+16(SB)/8, $0xffffffffffffffff
DATA tailmask<>+24(SB)/8, $0xffffffffffffffff
DATA tailmask<>+32(SB)/8, $0
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// tailmask16<>: word t is (1<<t)-1, the opmask selecting t elements.
DATA tailmask16<>+0(SB)/2, $0x0000
DATA tailmask16<>+2(SB)/2, $0x0001
DATA tailmask16<>+4(SB)/2, $0x0003
DATA tailmask16<>+6(SB)/2, $0x0007
DATA tailmask16<>+8(SB)/2, $0x000f
DATA tailmask16<>+10(SB)/2, $0x001f
DATA tailmask16<>+12(SB)/2, $0x003f
DATA tailmask16<>+14(SB)/2, $0x007f
DATA tailmask16<>+16(SB)/2, $0x00ff
DATA tailmask16<>+18(SB)/2, $0x01ff
DATA tailmask16<>+20(SB)/2, $0x03ff
DATA tailmask16<>+22(SB)/2, $0x07ff
DATA tailmask16<>+24(SB)/2, $0x0fff
DATA tailmask16<>+26(SB)/2, $0x1fff
DATA tailmask16<>+28(SB)/2, $0x3fff
DATA tailmask16<>+30(SB)/2, $0x7fff
GLOBL tailmask16<>(SB), RODATA|NOPTR, $32

// HSUM8 adds the eight lanes of y (whose low half is x) into lane 0 of x,
// in a fixed order, using t as scratch.
#define HSUM8(y, x, t) \
	VEXTRACTF128 $1, y, t; \
	VADDPS t, x, x; \
	VMOVHLPS x, x, t; \
	VADDPS t, x, x; \
	VMOVSHDUP x, t; \
	VADDSS t, x, x

// func dotRowsAVX2(out, matrix, query []float32)
TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-72
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ matrix_base+24(FP), SI
	MOVQ query_base+48(FP), DX
	MOVQ query_len+56(FP), R8

	MOVQ R8, R9
	ANDQ $-16, R9
	SHLQ $2, R9
	MOVQ R8, R10
	ANDQ $8, R10
	MOVQ R8, R11
	ANDQ $7, R11
	SHLQ $2, R8

	// Y15 = mask of the R11 tail elements.
	LEAQ tailmask<>(SB), AX
	MOVQ $8, BX
	SUBQ R11, BX
	VMOVDQU (AX)(BX*4), Y15

avx2_block4:
	CMPQ CX, $4
	JLT  avx2_rows1
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ BX, BX
	CMPQ BX, R9
	JGE  avx2_block4_half

avx2_block4_step:
	VMOVUPS     (DX)(BX*1), Y8
	VMOVUPS     32(DX)(BX*1), Y9
	VFMADD231PS (SI)(BX*1), Y8, Y0
	VFMADD231PS 32(SI)(BX*1), Y9, Y1
	VFMADD231PS (R12)(BX*1), Y8, Y2
	VFMADD231PS 32(R12)(BX*1), Y9, Y3
	VFMADD231PS (R13)(BX*1), Y8, Y4
	VFMADD231PS 32(R13)(BX*1), Y9, Y5
	VFMADD231PS (AX)(BX*1), Y8, Y6
	VFMADD231PS 32(AX)(BX*1), Y9, Y7
	ADDQ        $64, BX
	CMPQ        BX, R9
	JLT         avx2_block4_step

avx2_block4_half:
	TESTQ R10, R10
	JZ    avx2_block4_tail
	VMOVUPS     (DX)(BX*1), Y8
	VFMADD231PS (SI)(BX*1), Y8, Y0
	VFMADD231PS (R12)(BX*1), Y8, Y2
	VFMADD231PS (R13)(BX*1), Y8, Y4
	VFMADD231PS (AX)(BX*1), Y8, Y6
	ADDQ        $32, BX

avx2_block4_tail:
	TESTQ R11, R11
	JZ    avx2_block4_sum
	VMASKMOVPS  (DX)(BX*1), Y15, Y8
	VMASKMOVPS  (SI)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y1
	VMASKMOVPS  (R12)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y3
	VMASKMOVPS  (R13)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y5
	VMASKMOVPS  (AX)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y7

avx2_block4_sum:
	VADDPS Y1, Y0, Y0
	HSUM8(Y0, X0, X8)
	VMOVSS X0, (DI)
	VADDPS Y3, Y2, Y2
	HSUM8(Y2, X2, X8)
	VMOVSS X2, 4(DI)
	VADDPS Y5, Y4, Y4
	HSUM8(Y4, X4, X8)
	VMOVSS X4, 8(DI)
	VADDPS Y7, Y6, Y6
	HSUM8(Y6, X6, X8)
	VMOVSS X6, 12(DI)
	ADDQ   $16, DI
	LEAQ   (AX)(R8*1), SI
	SUBQ   $4, CX
	JMP    avx2_block4

avx2_rows1:
	TESTQ CX, CX
	JZ    avx2_done

avx2_row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ   BX, BX
	CMPQ   BX, R9
	JGE    avx2_row_half

avx2_row_step:
	VMOVUPS     (DX)(BX*1), Y8
	VMOVUPS     32(DX)(BX*1), Y9
	VFMADD231PS (SI)(BX*1), Y8, Y0
	VFMADD231PS 32(SI)(BX*1), Y9, Y1
	ADDQ        $64, BX
	CMPQ        BX, R9
	JLT         avx2_row_step

avx2_row_half:
	TESTQ R10, R10
	JZ    avx2_row_tail
	VMOVUPS     (DX)(BX*1), Y8
	VFMADD231PS (SI)(BX*1), Y8, Y0
	ADDQ        $32, BX

avx2_row_tail:
	TESTQ R11, R11
	JZ    avx2_row_sum
	VMASKMOVPS  (DX)(BX*1), Y15, Y8
	VMASKMOVPS  (SI)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y1

avx2_row_sum:
	VADDPS Y1, Y0, Y0
	HSUM8(Y0, X0, X8)
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	ADDQ   R8, SI
	DECQ   CX
	JNZ    avx2_row

avx2_done:
	VZEROUPPER
	RET

// func dotRowsAVX512(out, matrix, query []float32)
TEXT ·dotRowsAVX512(SB), NOSPLIT, $0-72
	MOVQ out_base+0(FP), DI
	MOVQ out_len+8(FP), CX
	MOVQ matrix_base+24(FP), SI
	MOVQ query_base+48(FP), DX
	MOVQ query_len+56(FP), R8

	MOVQ R8, R9
	ANDQ $-32, R9
	SHLQ $2, R9
	MOVQ R8, R10
	ANDQ $16, R10
	MOVQ R8, R11
	ANDQ $15, R11
	SHLQ $2, R8

	// K1 = mask of the R11 tail elements.
	LEAQ tailmask16<>(SB), AX
	KMOVW (AX)(R11*2), K1

avx512_block4:
	CMPQ CX, $4
	JLT  avx512_rows1
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	XORQ BX, BX
	CMPQ BX, R9
	JGE  avx512_block4_half

avx512_block4_step:
	VMOVUPS     (DX)(BX*1), Z8
	VMOVUPS     64(DX)(BX*1), Z9
	VFMADD231PS (SI)(BX*1), Z8, Z0
	VFMADD231PS 64(SI)(BX*1), Z9, Z1
	VFMADD231PS (R12)(BX*1), Z8, Z2
	VFMADD231PS 64(R12)(BX*1), Z9, Z3
	VFMADD231PS (R13)(BX*1), Z8, Z4
	VFMADD231PS 64(R13)(BX*1), Z9, Z5
	VFMADD231PS (AX)(BX*1), Z8, Z6
	VFMADD231PS 64(AX)(BX*1), Z9, Z7
	ADDQ        $128, BX
	CMPQ        BX, R9
	JLT         avx512_block4_step

avx512_block4_half:
	TESTQ R10, R10
	JZ    avx512_block4_tail
	VMOVUPS     (DX)(BX*1), Z8
	VFMADD231PS (SI)(BX*1), Z8, Z0
	VFMADD231PS (R12)(BX*1), Z8, Z2
	VFMADD231PS (R13)(BX*1), Z8, Z4
	VFMADD231PS (AX)(BX*1), Z8, Z6
	ADDQ        $64, BX

avx512_block4_tail:
	TESTQ R11, R11
	JZ    avx512_block4_sum
	VMOVUPS.Z   (DX)(BX*1), K1, Z8
	VMOVUPS.Z   (SI)(BX*1), K1, Z9
	VFMADD231PS Z9, Z8, Z1
	VMOVUPS.Z   (R12)(BX*1), K1, Z9
	VFMADD231PS Z9, Z8, Z3
	VMOVUPS.Z   (R13)(BX*1), K1, Z9
	VFMADD231PS Z9, Z8, Z5
	VMOVUPS.Z   (AX)(BX*1), K1, Z9
	VFMADD231PS Z9, Z8, Z7

avx512_block4_sum:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y8
	VADDPS        Y8, Y0, Y0
	HSUM8(Y0, X0, X8)
	VMOVSS        X0, (DI)
	VADDPS        Z3, Z2, Z2
	VEXTRACTF64X4 $1, Z2, Y8
	VADDPS        Y8, Y2, Y2
	HSUM8(Y2, X2, X8)
	VMOVSS        X2, 4(DI)
	VADDPS        Z5, Z4, Z4
	VEXTRACTF64X4 $1, Z4, Y8
	VADDPS        Y8, Y4, Y4
	HSUM8(Y4, X4, X8)
	VMOVSS        X4, 8(DI)
	VADDPS        Z7, Z6, Z6
	VEXTRACTF64X4 $1, Z6, Y8
	VADDPS        Y8, Y6, Y6
	HSUM8(Y6, X6, X8)
	VMOVSS        X6, 12(DI)
	ADDQ          $16, DI
	LEAQ          (AX)(R8*1), SI
	SUBQ          $4, CX
	JMP           avx512_block4

avx512_rows1:
	TESTQ CX, CX
	JZ    avx512_done

avx512_row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   BX, BX
	CMPQ   BX, R9
	JGE    avx512_row_half

avx512_row_step:
	VMOVUPS     (DX)(BX*1), Z8
	VMOVUPS     64(DX)(BX*1), Z9
	VFMADD231PS (SI)(BX*1), Z8, Z0
	VFMADD231PS 64(SI)(BX*1), Z9, Z1
	ADDQ        $128, BX
	CMPQ        BX, R9
	JLT         avx512_row_step

avx512_row_half:
	TESTQ R10, R10
	JZ    avx512_row_tail
	VMOVUPS     (DX)(BX*1), Z8
	VFMADD231PS (SI)(BX*1), Z8, Z0
	ADDQ        $64, BX

avx512_row_tail:
	TESTQ R11, R11
	JZ    avx512_row_sum
	VMOVUPS.Z   (DX)(BX*1), K1, Z8
	VMOVUPS.Z   (SI)(BX*1), K1, Z9
	VFMADD231PS Z9, Z8, Z1

avx512_row_sum:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y8
	VADDPS        Y8, Y0, Y0
	HSUM8(Y0, X0, X8)
	VMOVSS        X0, (DI)
	ADDQ          $4, DI
	ADDQ          R8, SI
	DECQ          CX
	JNZ           avx512_row

avx512_done:
	VZEROUPPER
	RET
