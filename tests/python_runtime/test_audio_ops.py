"""The audio ops of TensorFlow's speech-commands graphs: DecodeWav, EncodeWav,
AudioSpectrogram and Mfcc.

Against independent references (the stdlib `wave` module for the WAV files, numpy's rfft
for the spectrogram, a numpy transcription of the MFCC definition TensorFlow documents)
and, where TensorFlow 2.21 is installed ($OPGEN_TF_PYTHON, a child process), against
TensorFlow's outputs and error messages, including a ReadFile -> DecodeWav ->
AudioSpectrogram -> Mfcc pipeline on a synthetic chirp."""

from __future__ import annotations

import io
import math
import pickle
import re
import struct
import wave

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")


def wav_bytes(samples, channels, rate=16000):
    """A 16-bit PCM WAV file written by the stdlib `wave` module."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, "<i2").tobytes())
    return buffer.getvalue()


def chirp(n=16000, rate=16000, f0=100.0, f1=3000.0):
    t = np.arange(n) / rate
    return 0.6 * np.sin(2 * np.pi * (f0 * t + (f1 - f0) * t * t / (2 * t[-1])))


# ---- WAV files against the stdlib wave module --------------------------------------------

@pytest.mark.parametrize("channels", [1, 2, 3])
def test_decode_wav_reads_what_wave_writes(channels):
    rng = np.random.default_rng(channels)
    pcm = rng.integers(-32768, 32768, (50, channels)).astype(np.int16)
    pcm[0, 0], pcm[1, 0] = -32768, 32767
    audio, rate = ops.decode_wav(wav_bytes(pcm, channels, 22050))
    assert rate.numpy() == 22050
    np.testing.assert_array_equal(audio.numpy(), pcm.astype(np.float32) / 32768)


def test_decode_wav_pads_truncates_and_maps_channels():
    pcm = np.arange(12, dtype=np.int16).reshape(6, 2) * 1000
    want = pcm.astype(np.float32) / 32768
    data = wav_bytes(pcm, 2)
    longer = ops.decode_wav(data, desired_samples=9)[0].numpy()
    np.testing.assert_array_equal(longer, np.vstack([want, np.zeros((3, 2), np.float32)]))
    np.testing.assert_array_equal(ops.decode_wav(data, desired_samples=4)[0].numpy(), want[:4])
    # fewer channels: the first ones; more: the last one repeated
    np.testing.assert_array_equal(ops.decode_wav(data, desired_channels=1)[0].numpy(), want[:, :1])
    np.testing.assert_array_equal(ops.decode_wav(data, desired_channels=4)[0].numpy(),
                                  want[:, [0, 1, 1, 1]])
    assert ops.decode_wav(data, desired_samples=0)[0].numpy().shape == (0, 2)


def test_decode_wav_skips_other_chunks_and_accepts_an_18_byte_format():
    data = wav_bytes([1, -2, 3], 1)
    # a LIST chunk between fmt and data, and one after the data
    info = b"LIST" + struct.pack("<I", 4) + b"abcd"
    extra = data[:36] + info + data[36:] + info
    np.testing.assert_array_equal(ops.decode_wav(extra)[0].numpy().ravel(),
                                  np.float32([1, -2, 3]) / 32768)
    fmt18 = data[:16] + struct.pack("<I", 18) + data[20:36] + b"\0\0" + data[36:]
    np.testing.assert_array_equal(ops.decode_wav(fmt18)[0].numpy().ravel(),
                                  np.float32([1, -2, 3]) / 32768)


def test_encode_wav_writes_what_wave_reads():
    rng = np.random.default_rng(7)
    audio = rng.uniform(-1.2, 1.2, (40, 2)).astype(np.float32)
    data = ops.encode_wav(audio, 44100).numpy().item()
    with wave.open(io.BytesIO(data)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (
            2, 2, 44100, 40)
        pcm = np.frombuffer(w.readframes(40), "<i2").reshape(40, 2)
    # scaled by 32768, rounded half away from zero, clamped
    scaled = audio.astype(np.float64) * 32768
    want = np.clip(np.sign(scaled) * np.floor(np.abs(scaled) + 0.5), -32768, 32767)
    np.testing.assert_array_equal(pcm, want.astype(np.int16))
    back = ops.decode_wav(data)[0].numpy()
    np.testing.assert_array_equal(back, pcm.astype(np.float32) / 32768)


def test_encode_wav_special_values():
    audio = np.float32([[np.nan], [np.inf], [-np.inf], [0.5 / 32768], [-1.5 / 32768]])
    data = ops.encode_wav(audio, 8).numpy().item()
    assert np.frombuffer(data[44:], "<i2").tolist() == [0, 32767, -32768, 1, -2]


@pytest.mark.parametrize("contents, message", [
    (b"", "Data too short when trying to read string"),
    (b"RIFX" + wav_bytes([1], 1)[4:], "Header mismatch: Expected RIFF but found RIFX"),
    (wav_bytes([1], 1)[:12] + b"LIST", "Unexpected field LIST"),
    (wav_bytes([1], 1)[:36], "No data chunk found in WAV"),
    (wav_bytes([1, 2], 1)[:-1], "Data too short when trying to read string"),
    (wav_bytes([1], 1) + wav_bytes([1], 1)[36:], "More than one data chunk found in WAV"),
])
def test_decode_wav_refuses_bad_files(contents, message):
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(message)):
        ops.decode_wav(contents)[0].numpy()


# ---- the spectrogram and the MFCCs against numpy ------------------------------------------

def spectrogram_reference(x, window, stride, squared):
    fft = 1 << (window - 1).bit_length()
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(window) / window)
    frames = 0 if len(x) < window else 1 + (len(x) - window) // stride
    out = np.zeros((x.shape[1], frames, fft // 2 + 1), np.float32)
    for c in range(x.shape[1]):
        for f in range(frames):
            seg = x[f * stride:f * stride + window, c].astype(np.float64) * hann
            power = (np.abs(np.fft.rfft(seg, fft)) ** 2).astype(np.float32)
            out[c, f] = power if squared else np.sqrt(power)
    return out


@pytest.mark.parametrize("window, stride, squared", [(8, 4, True), (5, 3, False), (2, 1, True),
                                                     (30, 7, False), (64, 100, True)])
def test_spectrogram_matches_numpy(window, stride, squared):
    x = np.stack([np.sin(np.arange(300) * 0.3), chirp(300, 1000)], 1).astype(np.float32)
    got = ops.audio_spectrogram(x, window_size=window, stride=stride,
                                magnitude_squared=squared).numpy()
    want = spectrogram_reference(x, window, stride, squared)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 * want.max())


def test_spectrogram_of_too_few_samples_is_empty():
    x = np.zeros((5, 3), np.float32)
    assert ops.audio_spectrogram(x, window_size=8, stride=2).numpy().shape == (3, 0, 5)


def mfcc_reference(spec, rate, upper=4000.0, lower=20.0, filters=40, coefficients=13):
    """TensorFlow's documented MFCC: mel = 1127 ln(1 + f / 700); triangular filters between
    mel-spaced centres over the bins in [lower, upper]; magnitudes (square roots of the
    power spectrum) summed; floored at 1e-12; log; an orthonormal DCT-II."""
    def mel(f):
        return 1127.0 * np.log1p(f / 700.0)
    bins = spec.shape[-1]
    centers = mel(lower) + (mel(upper) - mel(lower)) / (filters + 1) * np.arange(1, filters + 2)
    hz = 0.5 * rate / (bins - 1)
    start, end = int(1.5 + lower / hz), int(upper / hz)
    gains = np.zeros((filters, bins))
    for i in range(start, end + 1):
        m = mel(i * hz)
        right = int(np.searchsorted(centers[:filters], m))  # first centre >= m
        left = right - 1
        w = ((centers[right] - m) / (centers[right] - centers[left]) if left >= 0
             else (centers[0] - m) / (centers[0] - mel(lower)))
        if left >= 0:
            gains[left, i] += w
        if right < filters:
            gains[right, i] += 1 - w
    energies = np.sqrt(spec.astype(np.float64)) @ gains.T
    logs = np.log(np.maximum(energies, 1e-12))
    j = np.arange(filters)
    dct = np.array([math.sqrt(2.0 / filters) * np.cos(i * math.pi / filters * (j + 0.5))
                    for i in range(coefficients)])
    return (logs @ dct.T).astype(np.float32)


@pytest.mark.parametrize("kwargs", [{}, dict(upper_frequency_limit=3000.0,
                                             lower_frequency_limit=100.0,
                                             filterbank_channel_count=20,
                                             dct_coefficient_count=20),
                                    dict(lower_frequency_limit=0.0, dct_coefficient_count=1)])
def test_mfcc_matches_numpy(kwargs):
    rng = np.random.default_rng(3)
    spec = rng.uniform(0, 2, (2, 3, 257)).astype(np.float32)
    got = ops.mfcc(spec, 16000, **kwargs).numpy()
    ref_args = dict(upper=kwargs.get("upper_frequency_limit", 4000.0),
                    lower=kwargs.get("lower_frequency_limit", 20.0),
                    filters=kwargs.get("filterbank_channel_count", 40),
                    coefficients=kwargs.get("dct_coefficient_count", 13))
    want = mfcc_reference(spec, 16000, **ref_args)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_mfcc_above_nyquist_is_zero():
    """An upper limit past the spectrum's last bin leaves TensorFlow's filterbank unset:
    every coefficient is 0."""
    spec = np.ones((1, 2, 129), np.float32)
    np.testing.assert_array_equal(ops.mfcc(spec, 16000, upper_frequency_limit=9000.0).numpy(),
                                  np.zeros((1, 2, 13), np.float32))


@pytest.mark.parametrize("kwargs", [dict(filterbank_channel_count=0), dict(dct_coefficient_count=41),
                                    dict(lower_frequency_limit=-1.0),
                                    dict(lower_frequency_limit=5000.0)])
def test_mfcc_refuses_bad_filterbanks(kwargs):
    with pytest.raises(errors.InvalidArgumentError, match="Mfcc initialization failed"):
        ops.mfcc(np.ones((1, 2, 129), np.float32), 16000, **kwargs).numpy()


# ---- against TensorFlow ----------------------------------------------------------------------

_F32 = np.float32
_WAV2 = wav_bytes(np.arange(-6, 6, dtype=np.int16) * 2500, 2, 8000)
_SPEC = np.random.default_rng(5).uniform(0, 3, (2, 4, 129)).astype(_F32)
_X = np.stack([np.sin(np.arange(64) * 0.7), np.cos(np.arange(64) * 0.2)], 1).astype(_F32)

TF_CASES = [
    ("DecodeWav", {"contents": _WAV2}, {}),
    ("DecodeWav", {"contents": _WAV2}, {"desired_channels": 3, "desired_samples": 9}),
    ("DecodeWav", {"contents": _WAV2}, {"desired_channels": 1, "desired_samples": 2}),
    ("DecodeWav", {"contents": _WAV2}, {"desired_samples": -2}),
    ("DecodeWav", {"contents": _WAV2}, {"desired_channels": -2}),
    ("DecodeWav", {"contents": np.array([_WAV2], object)}, {}),
    ("DecodeWav", {"contents": _WAV2[:20] + struct.pack("<H", 3) + _WAV2[22:]}, {}),
    ("DecodeWav", {"contents": _WAV2[:34] + struct.pack("<H", 8) + _WAV2[36:]}, {}),
    ("DecodeWav", {"contents": _WAV2[:28] + struct.pack("<I", 7) + _WAV2[32:]}, {}),
    ("DecodeWav", {"contents": _WAV2[:32] + struct.pack("<H", 6) + _WAV2[34:]}, {}),
    ("DecodeWav", {"contents": _WAV2[:22] + struct.pack("<H", 0) + _WAV2[24:]}, {}),
    ("DecodeWav", {"contents": _WAV2[:16] + struct.pack("<I", 20) + _WAV2[20:]}, {}),
    ("DecodeWav", {"contents": _WAV2 + b"junk" + struct.pack("<I", 2 ** 31)}, {}),
    ("DecodeWav", {"contents": _WAV2 + b"junk" + struct.pack("<I", 2 ** 31 - 1)}, {}),
    ("DecodeWav", {"contents": _WAV2[:40] + struct.pack("<I", 11) + _WAV2[44:]}, {}),
    ("EncodeWav", {"audio": _X[:10], "sample_rate": np.int32(8000)}, {}),
    ("EncodeWav", {"audio": np.zeros((0, 2), _F32), "sample_rate": np.int32(8000)}, {}),
    ("EncodeWav", {"audio": np.zeros((3, 0), _F32), "sample_rate": np.int32(8000)}, {}),
    ("EncodeWav", {"audio": np.zeros((3,), _F32), "sample_rate": np.int32(8000)}, {}),
    ("EncodeWav", {"audio": np.zeros((3, 1), _F32), "sample_rate": np.int32(0)}, {}),
    ("EncodeWav", {"audio": np.zeros((3, 1), _F32), "sample_rate": np.int32(-5)}, {}),
    ("EncodeWav", {"audio": np.zeros((3, 1), _F32), "sample_rate": np.array([5], np.int32)}, {}),
    ("AudioSpectrogram", {"input": _X}, {"window_size": 16, "stride": 8}),
    ("AudioSpectrogram", {"input": _X}, {"window_size": 13, "stride": 5, "magnitude_squared": True}),
    ("AudioSpectrogram", {"input": _X}, {"window_size": 100, "stride": 5}),
    ("AudioSpectrogram", {"input": _X}, {"window_size": 1, "stride": 1}),
    ("AudioSpectrogram", {"input": _X}, {"window_size": 4, "stride": 0}),
    ("AudioSpectrogram", {"input": _X[:, 0]}, {"window_size": 4, "stride": 2}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(8000)}, {}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(8000)},
     {"upper_frequency_limit": 3500.0, "lower_frequency_limit": 300.0,
      "filterbank_channel_count": 26, "dct_coefficient_count": 26}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(7000)}, {}),
    ("Mfcc", {"spectrogram": _SPEC[:, :, :2], "sample_rate": np.int32(8000)}, {}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(0)}, {}),
    ("Mfcc", {"spectrogram": _SPEC[0], "sample_rate": np.int32(8000)}, {}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.array([1], np.int32)}, {}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(8000)}, {"dct_coefficient_count": 41}),
    ("Mfcc", {"spectrogram": _SPEC, "sample_rate": np.int32(8000)},
     {"filterbank_channel_count": 2 ** 31 - 1}),
]

TF_SCRIPT = r"""
import os, pickle, re, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
cases, chirp_file = pickle.load(open(sys.argv[1], "rb"))
out = []
for op, inputs, attrs in cases:
    try:
        res = getattr(tf.raw_ops, op)(**inputs, **attrs)
        res = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
        out.append(("ok", res))
    except Exception as e:
        message = str(e).split("}} ", 1)[-1]
        message = re.sub(r" \[Op:\w+\].*$", "", message.strip(), flags=re.S)
        out.append(("error", type(e).__name__, message))
# the speech-commands front end, as a graph: ReadFile -> DecodeWav -> AudioSpectrogram -> Mfcc
graph = tf.Graph()
with graph.as_default():
    name = tf.compat.v1.placeholder(tf.string, [], name="wav_filename")
    audio, rate = tf.raw_ops.DecodeWav(contents=tf.raw_ops.ReadFile(filename=name),
                                       desired_channels=1, desired_samples=16000)
    spec = tf.raw_ops.AudioSpectrogram(input=audio, window_size=480, stride=160,
                                       magnitude_squared=True)
    mfcc = tf.raw_ops.Mfcc(spectrogram=spec, sample_rate=rate, dct_coefficient_count=40,
                           filterbank_channel_count=40, upper_frequency_limit=7600.0,
                           lower_frequency_limit=60.0)
    tf.identity(mfcc, name="mfcc_out")
    tf.identity(spec, name="spec_out")
with tf.compat.v1.Session(graph=graph) as sess:
    pipeline = sess.run(["spec_out:0", "mfcc_out:0"], {"wav_filename:0": chirp_file})
pickle.dump((out, pipeline, graph.as_graph_def().SerializeToString()), open(sys.argv[2], "wb"))
"""


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    tf_python()  # skips first when there is no TensorFlow
    tmp = tmp_path_factory.mktemp("tf_audio")
    chirp_file = tmp / "chirp.wav"
    chirp_file.write_bytes(CHIRP_WAV)
    (tmp / "cases.pkl").write_bytes(pickle.dumps((TF_CASES, str(chirp_file))))
    run_tf(["-c", TF_SCRIPT, tmp / "cases.pkl", tmp / "out.pkl"], cwd=tmp, timeout=300)
    out, pipeline, graph_def = pickle.loads((tmp / "out.pkl").read_bytes())
    return out, pipeline, graph_def, chirp_file


CHIRP_WAV = wav_bytes(np.round(chirp() * 32767).astype(np.int16), 1)


def _snake(op: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op).lower()


def _tolerance(op):
    return {"AudioSpectrogram": 1e-5, "Mfcc": 1e-5}.get(op, 0.0)


@pytest.mark.parametrize("index", range(len(TF_CASES)))
def test_matches_tensorflow(tf_results, index):
    op, inputs, attrs = TF_CASES[index]
    result = tf_results[0][index]
    fn = getattr(ops, _snake(op))
    if result[0] == "error":
        _, error_class, message = result
        with pytest.raises(getattr(errors, error_class, errors.OpError)) as raised:
            res = fn(**inputs, **attrs)
            [r.numpy() for r in res] if isinstance(res, (list, tuple)) else res.numpy()
        assert message in str(raised.value), (op, attrs)
        return
    want = result[1]
    res = fn(**inputs, **attrs)
    got = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
    want = [np.array(w, object) if isinstance(w, bytes) else w for w in want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (op, attrs)
        tol = _tolerance(op)
        if tol:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max([1.0, *np.abs(w).ravel()]))
        else:
            np.testing.assert_array_equal(g, w)


def test_speech_front_end_matches_tensorflow(tf_results):
    """ReadFile -> DecodeWav -> AudioSpectrogram -> Mfcc on a one-second chirp, eagerly."""
    _, (tf_spec, tf_mfcc), _, chirp_file = tf_results
    audio, rate = ops.decode_wav(ops.read_file(str(chirp_file)), desired_channels=1,
                                 desired_samples=16000)
    spec = ops.audio_spectrogram(audio, window_size=480, stride=160, magnitude_squared=True)
    mfcc = ops.mfcc(spec, rate, dct_coefficient_count=40, filterbank_channel_count=40,
                    upper_frequency_limit=7600.0, lower_frequency_limit=60.0)
    assert spec.numpy().shape == tf_spec.shape == (1, 98, 257)
    np.testing.assert_allclose(spec.numpy(), tf_spec, rtol=1e-5, atol=1e-6 * tf_spec.max())
    np.testing.assert_allclose(mfcc.numpy(), tf_mfcc, rtol=1e-4, atol=1e-4)


def test_imported_speech_graph_matches_tensorflow(tf_results):
    """TensorFlow's GraphDef of the same front end, imported and run by opgen's Session."""
    import opgen
    _, (tf_spec, tf_mfcc), graph_def, chirp_file = tf_results
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(graph=graph) as session:
        spec, mfcc = session.run(["spec_out:0", "mfcc_out:0"], {"wav_filename:0": str(chirp_file)})
    np.testing.assert_allclose(spec, tf_spec, rtol=1e-5, atol=1e-6 * tf_spec.max())
    np.testing.assert_allclose(mfcc, tf_mfcc, rtol=1e-4, atol=1e-4)
