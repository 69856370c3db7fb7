"""Parses GBNF grammar files with llama.cpp's own grammar parser (through
llama-cpp-python, with the vocabulary of the model the end-to-end tests use) and
prints `FILE: ok` or `FILE: refused` for each; exits 1 if any is refused.

llama-cpp-python's LlamaGrammar.from_string keeps the text without parsing it,
and the server goes on without a grammar it cannot parse, so the end-to-end
tests ask the parser directly."""
import glob
import sys

import llama_cpp

model = glob.glob(sys.prefix + "/**/*.gguf", recursive=True)[0]
llm = llama_cpp.Llama(model_path=model, vocab_only=True, verbose=False)
vocab = llama_cpp.llama_model_get_vocab(llm._model.model)
refused = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        grammar = f.read()
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
    if sampler:
        llama_cpp.llama_sampler_free(sampler)
        print(f"{path}: ok")
    else:
        refused += 1
        print(f"{path}: refused")
sys.exit(1 if refused else 0)
