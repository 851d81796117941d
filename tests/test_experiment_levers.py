"""examples/perplexity's levers of issue 30: subword regularization while the models train
(regularize.py, ``--sampling``) and composed embeddings (composed.py and gpt.py, ``--composed``).

Oracles: a sampled pass decodes to the training lines, line for line (sampling changes the cut,
never the text: it decodes as the best segmentation does), and a pass drawn once is read back
alike by a new object on the same folder (a resumed run), whose tokens per pass count the
passes an earlier invocation drew; a composed model's logits equal, to
float precision, the formula written out with plain tensor arithmetic (embedding = own row +
the mean of the parts' rows, tied in the output); the composition's rows are count/n per
character of the piece text as ``id_to_piece`` shows it, each character in the one column every
piece holding it fills. The end-to-end resume test with both levers is in test_experiment_tools.py.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import sentencepiece
from conftest import require_extra, sample_training

import brahmic_pua
from examples.perplexity.data import Arm

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "perplexity"


@pytest.fixture
def torch_() -> object:
    require_extra("torch", "experiment", "the perplexity experiment's levers")
    import torch

    return torch


def _arms(sample_models: dict[str, Path], plain_hindi_model: str) -> list[Arm]:
    te = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["unigram"]))
    te_bpe = brahmic_pua.SentencePieceProcessor(model_file=str(sample_models["bpe"]))
    hi = sentencepiece.SentencePieceProcessor(model_file=plain_hindi_model)
    return [
        Arm("brahmic_pua-unigram", "brahmic_pua", "unigram", te),
        Arm("brahmic_pua-bpe", "brahmic_pua", "bpe", te_bpe),
        Arm("plain-unigram", "plain", "unigram", hi),
    ]


def _lines(arm: Arm) -> list[str]:
    return sample_training("hi" if arm.kind == "plain" else "te")[:200]


def _decoded(arm: Arm, stream: list[int]) -> list[str]:
    eos = int(arm.processor.eos_id())
    rows: list[list[int]] = [[]]
    for token in stream:
        if token == eos:
            rows.append([])
        else:
            rows[-1].append(token)
    assert rows[-1] == []  # every line ends in eos
    return [str(text) for text in arm.processor.decode(rows[:-1])]


def test_a_sampled_pass_spells_the_training_lines_and_is_read_back_alike(
    torch_: object, sample_models: dict[str, Path], plain_hindi_model: str, tmp_path: Path
) -> None:
    from examples.perplexity.regularize import SampledPasses

    for arm in _arms(sample_models, plain_hindi_model):
        lines = _lines(arm)
        best = arm.stream(lines)
        folder = tmp_path / arm.name
        passes = SampledPasses(arm, lines, 0.1, seed=3, steps_per_pass=5, folder=folder)
        first = passes.at(0)
        assert passes.at(4) is first  # steps 0-4: the first pass
        second = passes.at(5)
        want = _decoded(arm, best)  # the plain Hindi model has no byte fallback: ⁇ for p
        assert want == lines or arm.kind == "plain"
        assert _decoded(arm, first.tolist()) == want
        assert _decoded(arm, second.tolist()) == want
        assert first.tolist() != second.tolist() and first.tolist() != best
        assert sorted(p.name for p in folder.iterdir()) == ["pass0.pt", "pass1.pt"]
        again = SampledPasses(arm, lines, 0.1, seed=3, steps_per_pass=5, folder=folder)
        assert again.at(7).tolist() == second.tolist()  # a resumed run reads the pass back
        assert again.at(0).tolist() == first.tolist()
        assert passes.tokens == {0: len(first), 1: len(second)}
        # bytes per token of a resumed run: every pass its steps train on, not only the
        # passes this invocation drew (one that resumes in pass 1 never draws pass 0)
        resumed = SampledPasses(arm, lines, 0.1, seed=3, steps_per_pass=5, folder=folder)
        resumed.at(6)
        mean = (len(first) + len(second)) / 2
        assert resumed.mean_tokens(10) == passes.mean_tokens(10) == mean
        assert resumed.mean_tokens(5) == len(first) and resumed.mean_tokens(6) == mean


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.5])
def test_a_sampling_alpha_outside_0_1_is_refused(
    torch_: object, sample_models: dict[str, Path], plain_hindi_model: str, alpha: float
) -> None:
    from examples.perplexity.regularize import SampledPasses

    arm = _arms(sample_models, plain_hindi_model)[0]
    with pytest.raises(SystemExit, match="--sampling must be above 0 and at most 1"):
        SampledPasses(arm, ["x"], alpha, seed=0, steps_per_pass=1)


def test_the_composition_averages_each_pieces_characters(
    torch_: object, sample_models: dict[str, Path], plain_hindi_model: str
) -> None:
    import torch

    from examples.perplexity.composed import composition

    for arm in _arms(sample_models, plain_hindi_model):
        matrix = composition(arm, "char")
        processor = arm.processor
        assert matrix.shape[0] == processor.get_piece_size()
        kinds = (processor.is_control, processor.is_unknown, processor.is_unused)
        pieces: dict[int, Counter[str]] = {}
        for i in range(processor.get_piece_size()):
            if any(special(i) for special in (*kinds, processor.is_byte)):
                assert not matrix[i].any()
            else:
                pieces[i] = Counter(processor.id_to_piece(i).replace("\u2581", " "))
        # a character's column: the one every piece holding that character fills
        filled = {i: set(torch.nonzero(matrix[i]).flatten().tolist()) for i in pieces}
        candidates: dict[str, set[int]] = {}
        for i, chars in pieces.items():
            for ch in chars:
                candidates[ch] = candidates.get(ch, filled[i]) & filled[i]
        columns = {ch: min(c) for ch, c in candidates.items() if len(c) == 1}
        assert len(set(columns.values())) == len(columns)  # one column per character
        checked = 0
        for i, chars in pieces.items():
            n = sum(chars.values())
            assert matrix[i].sum().item() == pytest.approx(1.0)
            assert int(torch.count_nonzero(matrix[i])) == len(chars)
            if all(ch in columns for ch in chars):
                for ch, count in chars.items():
                    assert matrix[i, columns[ch]].item() == pytest.approx(count / n)
                checked += 1
        assert checked > len(pieces) // 2


def test_a_composed_model_is_the_formula_written_out(torch_: object) -> None:
    import torch
    from torch.nn import functional as F

    from examples.perplexity.gpt import GPT, GPTConfig, parameter_count

    cfg = GPTConfig(vocab_size=4, layers=1, heads=2, width=8, context=6, dropout=0.0)
    comp = torch.tensor([[0.5, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    torch.manual_seed(0)
    model = GPT(cfg, comp).eval()
    assert model.parts is not None
    assert parameter_count(model) == parameter_count(GPT(cfg)) + 3 * 8
    idx = torch.tensor([[3, 0, 1, 2, 0]])
    weight = model.tok.weight.detach().clone()
    parts = model.parts.weight.detach()
    weight[0] += (parts[0] + parts[1]) / 2
    weight[1] += parts[1]
    weight[3] += parts.mean(dim=0)
    x = weight[idx] + model.pos.weight.detach()[:5]
    for block in model.blocks:
        x = block(x)
    want = F.layer_norm(x, (8,), model.ln_f.weight, model.ln_f.bias) @ weight.T
    assert torch.allclose(model(idx), want, atol=1e-6)
    loss = model(idx).sum()
    loss.backward()
    assert model.parts.weight.grad is not None and model.parts.weight.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="composition has 3 rows"):
        GPT(cfg, comp[:3])
