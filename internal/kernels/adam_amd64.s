//go:build amd64

#include "textflag.h"

// func adamMomentAVX(blocks int, s, grad, dst *float32, rate float32, square bool)
//
// dst = s + (x - s)·rate, x = g or g·g, 8 values a block: a multiply
// and an add, each rounded, as Go computes it.
TEXT ·adamMomentAVX(SB), NOSPLIT, $0-37
	MOVQ blocks+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ grad+16(FP), DI
	MOVQ dst+24(FP), DX
	VBROADCASTSS rate+32(FP), Y15
	MOVBLZX square+36(FP), AX

moment:
	VMOVUPS (DI), Y0
	TESTQ AX, AX
	JZ plain
	VMULPS Y0, Y0, Y0

plain:
	VMOVUPS (SI), Y1
	VSUBPS Y1, Y0, Y0
	VMULPS Y15, Y0, Y0
	VADDPS Y0, Y1, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ CX
	JNZ moment
	VZEROUPPER
	RET

// func adamStepAVX(blocks int, p, m, v, dst *float32, alpha, eps float32)
//
// dst = p - (m·alpha) / (sqrt(v) + eps), 8 values a block. VSQRTPS is
// the correctly rounded float32 root, as Go's float64 root rounded to
// float32 is.
TEXT ·adamStepAVX(SB), NOSPLIT, $0-48
	MOVQ blocks+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ m+16(FP), DI
	MOVQ v+24(FP), R8
	MOVQ dst+32(FP), DX
	VBROADCASTSS alpha+40(FP), Y15
	VBROADCASTSS eps+44(FP), Y14

step:
	VSQRTPS (R8), Y2
	VADDPS Y14, Y2, Y2
	VMOVUPS (DI), Y1
	VMULPS Y15, Y1, Y1
	VDIVPS Y2, Y1, Y1
	VMOVUPS (SI), Y0
	VSUBPS Y1, Y0, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, DX
	DECQ CX
	JNZ step
	VZEROUPPER
	RET
