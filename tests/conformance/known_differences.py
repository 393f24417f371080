"""The (op, dtypes) pairs known to differ from TensorFlow, and why: the differential test
marks them strict xfail, so a fixed pair shows up as XPASS and must leave this table.
Keys are a pair id (cases.Pair.id, e.g. "Softmax-float32") or an op name (all its pairs).
Every entry is explained in docs/conformance.md."""

from __future__ import annotations

KNOWN: dict[str, str] = {
    **dict.fromkeys(['LRN-float32', 'LRN-float16', 'LRNGrad-float32'],
        "LRN over depth rows holding inf or NaN: TensorFlow sums the squares as a product with a band matrix, so a non-finite square times the band's zeros makes the whole row NaN (float32; its half kernel differs again); opgen sums each window alone (finite rows agree)"),
    'LRNGrad-float16':
        "half LRNGrad: TensorFlow rounds each step of the sum to half; opgen sums in float and rounds once (about 1e-3 apart), and non-finite rows as LRN's",
    'SegmentProd-complex64-int32':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'SegmentProd-complex64-int64':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'UnsortedSegmentProd-complex64-int32-int32':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'UnsortedSegmentProd-complex64-int32-int64':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'UnsortedSegmentProd-complex64-int64-int32':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'UnsortedSegmentProd-complex64-int64-int64':
        "complex64 segment products with infinite parts: TensorFlow's reduction forms them with Eigen's vectorised product or std::complex's (C99's recovery of infinities: inf+nanj) by an element's position; opgen with the textbook product (nan+nanj)",
    'Prod-complex64-int32':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'Prod-complex64-int64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'ReciprocalGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'RsqrtGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'SigmoidGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'TanhGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'SqrtGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'Cumprod-complex64-int32':
        "complex Cumprod with infinite parts: TensorFlow's scan multiplies with std::complex's product (C99's recovery of infinities: inf+nanj), opgen with the textbook product of its Mul and Prod (nan+nanj)",
    'Cumprod-complex64-int64':
        "complex Cumprod with infinite parts: TensorFlow's scan multiplies with std::complex's product (C99's recovery of infinities: inf+nanj), opgen with the textbook product of its Mul and Prod (nan+nanj)",
    'Sign-complex64':
        "complex Sign with a NaN part: TensorFlow's |x| there ignores the NaN (sign(nan+1j) is nan+0.707j, sign(nan+0j) nan+0j); opgen's |x| is NaN, so both parts are",
    'Cumprod-complex128-int32':
        "complex Cumprod with infinite parts: TensorFlow's scan multiplies with std::complex's product (C99's recovery of infinities: inf+nanj), opgen with the textbook product of its Mul and Prod (nan+nanj)",
    'Cumprod-complex128-int64':
        "complex Cumprod with infinite parts: TensorFlow's scan multiplies with std::complex's product (C99's recovery of infinities: inf+nanj), opgen with the textbook product of its Mul and Prod (nan+nanj)",
    'Sign-complex128':
        "complex Sign with a NaN part: TensorFlow's |x| there ignores the NaN (sign(nan+1j) is nan+0.707j, sign(nan+0j) nan+0j); opgen's |x| is NaN, so both parts are",
    'Sqrt-complex128':
        "complex Sqrt of -inf with a negative or -0.0 imaginary part: TensorFlow gives 0+infj (the wrong half plane; complex64 by an element's position), opgen 0-infj (C99 and numpy agree)",
    'Sqrt-complex64':
        "complex Sqrt of -inf with a negative or -0.0 imaginary part: TensorFlow gives 0+infj (the wrong half plane; complex64 by an element's position), opgen 0-infj (C99 and numpy agree)",
    'SqrtGrad-complex128':
        "complex128 SqrtGrad of an infinite y and a NaN dy: TensorFlow's quotient keeps an infinite part (nan+infj), opgen's scaled quotient gives nan+nanj",
    'Cast-int16-bfloat16':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-int16-float32':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-int16-float64':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-int8-bfloat16':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-uint16-bfloat16':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-uint16-float32':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-uint16-float64':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-uint32-float16':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'Cast-uint8-bfloat16':
        "out-of-range float to integer: undefined in C++; TensorFlow's results follow its vectorised conversion through int32 (NaN or inf to uint32 gives 2^31, 1e10 to int16 gives 0) and saturate for bfloat16 sources; opgen converts as x86's scalar conversion through int64 does (numpy's astype)",
    'BatchToSpaceND-bool-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-bool-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-bool-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-bool-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex128-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex128-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex128-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex128-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex64-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex64-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex64-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'BatchToSpaceND-complex64-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'Cast-bool-bfloat16':
        'bfloat16 subnormals to bool: opgen reads them through float32 under denormals-are-zero (false), TensorFlow tests their bits (true) [remaining]',
    'ClipByValue-bfloat16':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-float16':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-float32':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-float64':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-int16':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-int32':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-int64':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-int8':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-uint16':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'ClipByValue-uint8':
        "bounds of another shape than x: opgen broadcasts them (as tf.clip_by_value does in Python; a deliberate superset, tested as such); TensorFlow's kernel wants scalars or x's shape",
    'Conv2D-float64':
        'infinities of both signs in one sum: NaN or +-inf depending on the summation order (TensorFlow: NaN)',
    'Conv2DBackpropInput-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv2DBackpropInput-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv3D-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv3D-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNative-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNative-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNative-float32':
        "overflow in a sum of finite values: TensorFlow's order reaches inf - inf (NaN), opgen's a finite value",
    'DepthwiseConv2dNative-float64':
        "overflow in a sum of finite values: TensorFlow's order reaches inf - inf (NaN), opgen's a finite value",
    'Einsum-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Einsum-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Elu-bfloat16':
        'TensorFlow computes expm1(x) as exp(x) - 1 in the storage type (half/bfloat16), losing small negative x; opgen uses expm1 in float32 (more accurate)',
    'Elu-float16':
        'TensorFlow computes expm1(x) as exp(x) - 1 in the storage type (half/bfloat16), losing small negative x; opgen uses expm1 in float32 (more accurate)',
    'Erf-float64':
        "TensorFlow's float64 erf(+-inf) is NaN (wrong: erf(+-inf) is +-1); opgen's is +-1",
    'LeakyRelu-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'LeakyRelu-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Lgamma-float32':
        "lgamma of a float32 subnormal: opgen widens it to double under denormals-are-zero (0, so +inf), TensorFlow's float lgamma sees it (103.97) [remaining]",
    'Ndtri-float64':
        "ndtri within a few ulps of the smallest normal: opgen's libm erfc loses precision under denormals-are-zero there (-37.51979 for 2.2e-308), TensorFlow's polynomial gives -37.51938 [remaining]",
    'Xlogy-float64':
        "log of a float64 subnormal: opgen's libm log sees it (-745.13), TensorFlow's vectorised log reads it as zero (-inf) [remaining]",
    **{pair: "bfloat16 subnormals: opgen reads x through float32 under denormals-are-zero (zero, so the result is 0), TensorFlow tests its bits (non-zero: x * log(y) is NaN) [remaining]"
       for pair in ('Xlogy-bfloat16', 'Xlog1py-bfloat16')},
    'IgammaGradA-float64':
        "dP/da differentiated through opgen's own series and continued fraction (dual numbers): 1.7e-14 relative from TensorFlow's at a = 0.982, x = 1.295, past the 64-ulp bound [remaining]",
    'RandomGammaGrad-float32':
        "a Gamma sample's derivative where the gamma density underflows (alpha 1.2e-38, sample 88.5): TensorFlow's -0.0, opgen's ratio formed without the density (8.4e37, about 1/alpha) [remaining]",
    'RandomGammaGrad-float64':
        "a Gamma sample's derivative where the gamma density underflows (alpha 2.2e-308, sample 88.5): TensorFlow's -0.0, opgen's ratio formed without the density (4.4e307, about 1/alpha); and 1.7e-14 relative on the baseline, as IgammaGradA-float64 [remaining]",
    'Log-float64':
        "log of a float64 subnormal: opgen's libm log sees it (-745.13), TensorFlow's vectorised log reads it as zero (-inf) [remaining]",
    'LogSoftmax-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'LogSoftmax-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Pow-float64':
        'float64 pow of a subnormal exponent: TensorFlow reads it as 0 (pow(-1, 5e-324) = 1), opgen\'s libm pow sees it (NaN) [remaining]',
    'RealDiv-int16':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-int32':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-int64':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-int8':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-uint16':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-uint32':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-uint64':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'RealDiv-uint8':
        "no TensorFlow CPU kernel for integer RealDiv (the OpDef allows it): opgen's kernel is a deliberate superset",
    'Round-int32':
        "TensorFlow 2.21's CPU Round of int32/int64 returns zeros (a TensorFlow bug); opgen returns the input",
    'Round-int64':
        "TensorFlow 2.21's CPU Round of int32/int64 returns zeros (a TensorFlow bug); opgen returns the input",
    'Selu-bfloat16':
        'TensorFlow computes expm1(x) as exp(x) - 1 in the storage type (half/bfloat16), losing small negative x; opgen uses expm1 in float32 (more accurate)',
    'Selu-float16':
        'TensorFlow computes expm1(x) as exp(x) - 1 in the storage type (half/bfloat16), losing small negative x; opgen uses expm1 in float32 (more accurate)',
    'Softplus-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'SpaceToBatchND-bool-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-bool-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-bool-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-bool-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex128-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex128-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex128-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex128-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex64-int32-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex64-int32-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex64-int64-int32':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SpaceToBatchND-complex64-int64-int64':
        "no TensorFlow CPU kernel for this dtype (the OpDef allows it): opgen's kernel is a deliberate superset",
    'SquaredDifference-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'SquaredDifference-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Tile-uint16-int32':
        "no TensorFlow CPU kernel for uint16 Tile (the OpDef allows it): opgen's kernel is a deliberate superset",
    'Tile-uint16-int64':
        "no TensorFlow CPU kernel for uint16 Tile (the OpDef allows it): opgen's kernel is a deliberate superset",
    'Where-bfloat16':
        'bfloat16 subnormals: opgen reads them through float32 under denormals-are-zero (zero), TensorFlow tests their bits (non-zero) [remaining]',
    'Where-float16':
        "no TensorFlow CPU kernel for float16 Where: opgen's kernel is a deliberate superset",
    'AvgPoolGrad-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'AvgPoolGrad-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv2DBackpropFilter-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv2DBackpropFilter-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNativeBackpropFilter-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNativeBackpropFilter-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNativeBackpropInput-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'DepthwiseConv2dNativeBackpropInput-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Dilation2DBackpropFilter-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'MaxPoolGrad-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'ResizeNearestNeighborGrad-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'ResizeNearestNeighborGrad-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'ResizeBilinearGrad-float64':
        "align_corners with a one-pixel original side: TensorFlow's float64 gradient differs in the 8th digit from the sum of its own float32 terms; opgen's is that sum (every other case is TensorFlow's bit for bit)",
    'Conv3DBackpropFilterV2-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv3DBackpropFilterV2-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv3DBackpropInputV2-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Conv3DBackpropInputV2-float16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    'Mul-complex64':
        "complex64 arithmetic: TensorFlow computes the elements in whole AVX packets (4) with Eigen's vectorised product and scaled quotient, and the rest with std::complex's (C99 recovery of infinities, another rounding); opgen uses the vectorised formula for every element, so the tail differs in the last bit and at infinities and NaN",
    'Div-complex64':
        "complex64 arithmetic: TensorFlow computes the elements in whole AVX packets (4) with Eigen's vectorised product and scaled quotient, and the rest with std::complex's (C99 recovery of infinities, another rounding); opgen uses the vectorised formula for every element, so the tail differs in the last bit and at infinities and NaN",
    'RealDiv-complex64':
        "complex64 arithmetic: TensorFlow computes the elements in whole AVX packets (4) with Eigen's vectorised product and scaled quotient, and the rest with std::complex's (C99 recovery of infinities, another rounding); opgen uses the vectorised formula for every element, so the tail differs in the last bit and at infinities and NaN",
    'Inv-complex64':
        "complex64 arithmetic: TensorFlow computes the elements in whole AVX packets (4) with Eigen's vectorised product and scaled quotient, and the rest with std::complex's (C99 recovery of infinities, another rounding); opgen uses the vectorised formula for every element, so the tail differs in the last bit and at infinities and NaN",
    'InvGrad-complex64':
        "complex64 products and quotients with infinite parts: TensorFlow forms the elements of whole AVX packets with Eigen's vectorised product and scaled quotient and the rest with std::complex's (C99's recovery of infinities), so its result depends on an element's position; opgen uses the vectorised forms everywhere (complex128 agrees)",
    'Reciprocal-complex64':
        "complex64 arithmetic: TensorFlow computes the elements in whole AVX packets (4) with Eigen's vectorised product and scaled quotient, and the rest with std::complex's (C99 recovery of infinities, another rounding); opgen uses the vectorised formula for every element, so the tail differs in the last bit and at infinities and NaN",
    'Cast-complex64-float64':
        "float64 to complex64 with Truncate=True: TensorFlow's result is not the value (1.0039 becomes 0.5); opgen ignores Truncate here and rounds to nearest, as every cast but float32 to bfloat16",
    'MaxPool3D':
        "3-D max pooling over windows holding NaN: TensorFlow's Eigen max reduction works in SSE packets whose max returns NaN or drops a neighbour by its position; opgen's max skips NaN as its MaxPool kernel does (windows without NaN agree)",
    'AvgPool3D-float32':
        "3-D average pooling over values near float's largest: TensorFlow's Eigen reduction sums a window in another order, so intermediate sums overflow elsewhere; opgen sums in row order (ordinary values agree)",
    'AvgPool3D-bfloat16':
        'half/bfloat16: TensorFlow rounds intermediate results (or accumulates) in the 16-bit type; opgen computes in float32 and rounds once (more accurate)',
    **dict.fromkeys(['LSTMBlockCell-float16', 'LSTMBlockCellGrad-float16', 'BlockLSTM-float16',
                     'BlockLSTMV2-float16', 'BlockLSTMGrad-float16', 'BlockLSTMGradV2-float16'],
        "half LSTM block ops: TensorFlow rounds every step to half (the gates' matrix products and the backward recurrence included), so sums near half's largest overflow to inf and NaN there; opgen computes in float32 and rounds each output once (about 1e-3 apart on ordinary values)"),
    **dict.fromkeys(['LSTMBlockCell-float32', 'BlockLSTM-float32', 'BlockLSTMV2-float32'],
        "LSTM gates over operands near float's largest: TensorFlow forms each gate's pre-activation as one product of [x, h] with w, opgen as x's product plus h's (BlockLSTM: x's for all steps at once), so partial sums overflow in other places (a gate of TensorFlow's finite or inf sum can be NaN in opgen's, and the other way); ordinary values agree"),
}


def reason(pair) -> str | None:
    return KNOWN.get(pair.id) or KNOWN.get(pair.op)
