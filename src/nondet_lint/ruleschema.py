"""The shape of rule files: which keys each table may hold, and their types.

A check reads its rule's ``data`` by key, so a misspelled key in a rule file (bundled, or
a user's ``rule-files``) would silently do nothing. ``check_file`` rejects every key the
schema does not name, and every value of the wrong type, with the file, the table and
the key, as unknown config keys are.

The schema is data: a Python type (``str``, ``int``, ``bool``) for a value, a tuple of
them for a value of any of those types, ``List(item)`` for an array of values,
``Table({...})`` for a table with known keys (``required`` ones among them), ``Tables``
for an array of such tables, ``Map(value)`` for a table whose keys are names of the
user's choosing (argument names, packages, frameworks), and ``ANY`` for a value that
is checked where it is used (an example's config, by the config loader).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Mapping, Tuple, Union

Scalar = Union[type, Tuple[type, ...]]


@dataclass(frozen=True)
class List:
    item: Scalar


@dataclass(frozen=True)
class Table:
    keys: Mapping[str, "Schema"]
    required: FrozenSet[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Map:
    value: "Schema"


@dataclass(frozen=True)
class Tables:
    table: Union[Table, Map]
    strings: bool = False  # an entry may be a plain string instead (an example's source)


class _Any:
    pass


ANY = _Any()
Schema = Union[Scalar, List, Table, Tables, Map, _Any]

NAMES = List(str)
ARG = Table({"kw": str, "pos": int})  # where a call takes an argument: keyword, position
SCALAR = (bool, int, str)
CONDITION = Map(Table({"given": bool, "in": List(SCALAR), "not_in": List(SCALAR), "type": str, "pos": int}))  # by argument name
STATUS = Tables(Table({"kind": str, "versions": str, "advice": str, "report": str}))
OP_WHEN = Tables(Table({
    "arg": str, "pos": int, "default": (bool, str), "in": List(SCALAR), "is": bool, "present": bool,
    "negate": bool, "if_unknown": bool, "exact": Table({
        "calls": NAMES, "methods": NAMES, "casts": NAMES, "integer_dtypes": NAMES, "keep": NAMES,
        "fills": Tables(Table({"names": NAMES, "kw": str, "pos": int})), "flags": bool,
    }),
    "unique": Table({
        "calls": NAMES, "methods": NAMES, "keep": NAMES, "single_arg_calls": NAMES, "keep_calls": NAMES, "stack_calls": NAMES,
    }),
}))
OPS = Tables(Table({
    "id": str, "api": str, "names": NAMES, "methods": NAMES, "generic_methods": NAMES, "source": str,
    "phase": str, "report": str, "advice": str, "device": str, "min_args": int, "tensor_op": bool,
    "status": STATUS, "when": OP_WHEN, "implied_by": NAMES,
    "varies": str,
    "accumulator": Table({"receiver": bool, "arg": str, "pos": int}),
}))
INTEGER_ARRAYS = Table({
    "dtypes": NAMES, "calls": NAMES, "constructors": Tables(Table({"names": NAMES, "pos": int, "like": int})),
    "casts": Tables(Table({"methods": NAMES, "pos": int})), "methods": NAMES, "keep": NAMES, "like_methods": NAMES,
    "device_strings": NAMES, "device_words": NAMES, "device_calls": NAMES,
})
KINDS = Table({"raises": str, "switch": str, "unfixed": str, "switch_cpu": str})
CODE_FIX = Table({"imports": NAMES, "statements": str})
RNG_DATA: Dict[str, Schema] = {"consumers": NAMES, "rng": str}

# ``data`` of each rule: the tables its check reads
DATA: Dict[str, Table] = {
    "ND000": Table({
        "imports": Table({"star_exports": Map(Map(str)), "same_api": Map(str)}),
        "programs": Table({"speed_benchmark_words": NAMES, "clocks": NAMES}),
        "hf_datasets": Table({
            "modules": NAMES, "other_modules": NAMES, "seed_keywords": NAMES, "shuffles": NAMES,
            "streaming_methods": NAMES, "streaming_keyword": str, "streaming_generator": str,
        }),
    }),
    "ND101": Table({
        **RNG_DATA, "label": str, "seed_api": str, "seed_call": str,
        "restorers": Map(NAMES),
        "rngs": Map(Table({"code": str, "label": str, "seed_api": str, "seed_call": str, "seed_call_aliases": NAMES,
                           "legacy_seed_call": Table({"call": str, "seed_api": str, "hint_rule": str}),
                           "graph_seed_call": Table({"call": str, "seed_api": str, "after": NAMES}), "graphs": NAMES, "graph_resets": NAMES,
                           "known_versions": NAMES, "call_versions": Map(str)})),
        "seeders": Tables(Table({
            "names": NAMES, "seeds": NAMES, "value": ARG, "without_value": str, "always_random": bool,
            "random_without_value_before": Map(str), "known_versions": NAMES,
        })),
        "training": Table({"calls": NAMES, "methods": NAMES, "libraries": Map(Table({"callbacks": bool}, frozenset({"callbacks"})))}),
        "weights": Table({
            "restore_calls": NAMES, "restore_methods": NAMES, "partial": Tables(CONDITION),
            "initializers": NAMES, "keras_initializers": NAMES,
        }),
        "no_result": Table({"env_vars": NAMES, "target_words": NAMES, "keywords": NAMES, "wrappers": NAMES}),
        "framework_methods": Table({"names": NAMES, "constructors": Tables(Table({"methods": NAMES, "bases": NAMES}))}),
    }),
    "ND102": Table(RNG_DATA),
    "ND103": Table({"constructors": Tables(Table({"name": str, "kw": str, "pos": int}))}),
    "ND104": Table({
        **RNG_DATA, "generator_keyword": str, "tensor_methods": NAMES, "drawn_when_applied": NAMES,
        "conditional": Tables(Table({"name": str, "when": Tables(CONDITION), "unless": Tables(CONDITION)})),
    }),
    "ND105": Table({
        **RNG_DATA, "dataset_methods": NAMES, "dataset_prefixes": NAMES, "keras_names": NAMES,
        "keras_prefixes": Tables(Table({"prefix": str, "rng": str, "before": Map(str)})), "keras_aliases": Map(str),
        "op_seed_keyword": str, "tensorflow_versions": NAMES, "drawn_when_built": NAMES,
        "dataset_receivers": Table({"words": NAMES, "unless_imports": NAMES}),
        "conditional": Tables(Table({"name": str, "when": Tables(CONDITION), "unless": Tables(CONDITION)})),
    }),
    "ND106": Table({
        "defaults_methods": NAMES, "option_decorators": NAMES, "option_methods": NAMES, "parse_methods": NAMES,
        "flag_defines": NAMES, "flag_values": str, "environ": str, "environ_reads": NAMES,
        "config": Table({
            "decorators": NAMES, "parsers": NAMES, "parser_classes": NAMES, "parser_methods": NAMES,
            "library_classes": Map(str), "dict_classes": NAMES, "file_flags": NAMES,
        }),
    }),
    "ND107": Table({
        "hash_function": str, "seed_keywords": NAMES, "sources": NAMES,
        "sinks": Tables(Table({"name": str, "kw": str, "pos": int})),
        "sink_methods": Tables(Table({"name": str, "kw": str, "pos": int})),
        "live_input": Table({"calls": NAMES, "calls_in_loops": NAMES}),
    }),
    "ND108": Table({"ensembles": NAMES, "parametrize": NAMES, "inspections": NAMES,
                    "expected_raises": NAMES, "expected_raises_methods": NAMES, "sklearn_versions": NAMES,
                    "seeds_members": Tables(Table({"names": NAMES, "arguments": Tables(ARG)})), "apis": Tables(Table({
        "name": str, "random_state_default": str, "why": str, "defaults": Map(str),
        "when": Tables(CONDITION), "unless": Tables(CONDITION), "data": ARG,
        "no_draw_on": Tables(Table({"versions": str, "args": CONDITION, "bounds": NAMES, "positions": Map(int)})),
    })), "sizes": Table({
        "dims_calls": NAMES, "dims_methods": NAMES, "generators": NAMES, "keep": NAMES, "keep_methods": NAMES,
        "column_stacks": NAMES, "new_axis": NAMES, "subsets": NAMES, "keep_transformers": NAMES,
        "transform_methods": NAMES, "literal_arrays": NAMES, "self_methods": NAMES,
        "subset_sizes": Table({"test": str, "train": str, "default_test": float}),
        "split_methods": NAMES, "atleast_2d": NAMES, "transposes": NAMES, "transpose_attributes": NAMES,
        "positional_indexers": NAMES,
        "splitters": Tables(Table({"names": NAMES, "train": Table({"kw": str, "pos": int}), "test": Table({"kw": str, "pos": int})})),
        "shape_calls": Tables(Table({"names": NAMES, "kw": str, "pos": int, "default": int})),
        "shape_methods": Tables(Table({"names": NAMES, "kw": str, "pos": int, "default": int,
                                       "trailing": Table({"kw": str, "pos": int})})),
        "length_calls": Tables(Table({"names": NAMES, "kw": str, "pos": int, "default": int})),
        "sources": Tables(Table({
            "names": NAMES, "rows": Table({"kw": str, "pos": int, "default": int}), "cols": Table({"kw": str, "pos": int, "default": int}), "returns": NAMES, "fields": NAMES, "split": str,
            "shrink_with": NAMES, "unknown_with": NAMES,
        })),
    }), "fits": Table({
        "fit_methods": NAMES, "returns_self": NAMES, "unknown_methods": NAMES, "pipelines": NAMES, "unions": NAMES,
        "columns": NAMES, "cross_fits": NAMES, "reads": NAMES, "searchers": NAMES, "step_lists": NAMES,
        "test_suites": NAMES,
        "containers": Table({"items": NAMES, "pairs": NAMES, "keys": NAMES, "key_reads": NAMES, "orderings": NAMES}),
    })}),
    "ND109": Table({
        "generator": ARG, "loaders": NAMES, "num_workers": ARG, "shuffle": ARG, "torch_versions": NAMES,
        "worker_init_fn": ARG, "workers_before": str,
        "factories": Tables(Table({"names": NAMES, "shuffles_when": ARG, "unless": ARG})),
    }),
    "ND110": Table({"calls": Tables(Table({"name": str, "generator_pos": int}))}),
    "ND111": Table({
        "numpy_seed_calls": NAMES, "parse_methods": NAMES, "seed_option_flags": NAMES,
        "searchers": Tables(Table({
            "names": NAMES, "keyword": str, "pos": int, "mode": str, "value": str, "advice": str,
            "numpy_global": bool, "seed_env": NAMES, "unless_given": NAMES, "sampler": str,
            "multi_sampler": str, "multi_keywords": NAMES, "replaced_by": str,
        }, frozenset({"names", "keyword", "advice"}))),
        "searcher_prefixes": Tables(Table({
            "prefix": str, "mode": str, "numpy_global": bool, "what": str, "advice": str,
        }, frozenset({"prefix", "mode", "what", "advice"}))),
    }),
    "ND201": Table({"attributes": NAMES, "calls": Tables(Table({"names": NAMES, "arg": Table({"name": str, "pos": int})}))}),
    "ND203": Table({
        "foreign_roots": NAMES, "kinds": KINDS, "ops": OPS,
        "no_gradient": Table({
            "contexts": NAMES, "methods": NAMES, "load_hook_methods": NAMES,
            "load_hook_keywords": Tables(Table({"calls": NAMES, "keyword": str})),
            "fresh_calls": NAMES, "fresh_methods": NAMES, "parameter_calls": NAMES, "state_dict_parameters": NAMES,
        }),
        "cpu_tensors": Table({"methods": NAMES, "move_methods": NAMES, "devices": NAMES, "device_calls": NAMES}),
        "integer_arrays": INTEGER_ARRAYS,
    }),
    "ND204": Table({
        "kinds": KINDS, "namespace_aliases": Map(str), "ops": OPS,
        "cpu_side": Table({"pipeline_methods": NAMES, "pipeline_keywords": NAMES, "framework_hooks": NAMES}),
        "no_gradient": Table({
            "calls": NAMES, "cast_calls": NAMES, "integer_dtypes": NAMES, "target_words": NAMES, "loop_calls": NAMES, "loop_switch": str,
            "summary_calls": NAMES,
        }),
        "integer_uses": Table({name: Tables(Table({"names": NAMES, "arg": str, "pos": int})) for name in ("args", "keeping")}),
    }),
    "ND205": Table({
        "differentiation": Table({"calls": NAMES, "methods": Map(NAMES), "prefixes": NAMES, "not_prefixes": NAMES, "input_gradients": NAMES, "gradient_definitions": NAMES, "gradient_classes": NAMES, "gradient_methods": NAMES, "gradient_arguments": str,
            "gradient_transforms": NAMES, "updates": Table({"prefixes": NAMES, "tree_maps": NAMES, "methods": Map(NAMES)}),
        }),
        "estimator_modes": Table({"constants": Map(str), "methods": Map(NAMES), "calls": Map(NAMES)}),
        "evaluation": Table({
            "calls": NAMES, "load_calls": NAMES, "methods": Map(NAMES), "save_calls": NAMES, "save_methods": NAMES,
            "save_methods_after_load": NAMES, "function_names": NAMES,
            "array_writes": Table({
                "calls": NAMES, "methods": NAMES, "modes": Map(Table({"kw": str, "pos": int, "writing": NAMES})),
            }),
        }),
        "frameworks": Map(Table({
            "modules": NAMES, "known_versions": NAMES, "gpu_by_default": bool, "switch": str, "switch_text": str,
            "switch_texts": Tables(Table({"versions": str, "text": str})),
            "code_hint": Table({"versions": str, "names": NAMES}),
            "cpu_scope": Table({"calls": NAMES, "device": str, "objects": NAMES}),
            "hidden_by": str,
            "switch_code": Tables(Table({
                "versions": str, "imports": NAMES, "statements": str, "warn_only_statements": str, "names": Map(str),
            })),
        })),
        "gpu": Table({
            "calls": NAMES, "methods": NAMES, "device_literal": str, "device_prefix": str, "kernel_imports": NAMES,
            "auto_device_keywords": NAMES, "auto_device_literal": str, "gpu_words": NAMES, "placed_flags": NAMES, "placed_kinds": NAMES,
            "calls_with_arg": Tables(Table({"names": NAMES, "arg": str, "pos": int, "unless_from": NAMES})),
            "follows_given": Tables(Table({"names": NAMES, "arg": str, "pos": int})),
            "collectives": NAMES, "process_group_starts": NAMES,
            "gpu_by_default": Tables(Table({
                "names": NAMES,
                "unless": Table({"arg": str, "in": List(SCALAR), "option_means_cpu": bool}),
                "gpu_args": Tables(Table({"arg": str, "pos": int, "from_namespace": bool})),
                "default_gpu": Table({"package": str, "versions": str}),
                "framework": str,
            })),
        }),
        "packages": Map(Table({"names": NAMES, "known_versions": NAMES})),
        "program": Table({
            "registering_decorator": str, "lookup_registries": NAMES, "speed_benchmarks": NAMES,
            "viewer_calls": NAMES, "viewer_methods": Map(NAMES), "prompt_calls": NAMES, "binders": NAMES,
            "documentation": Table({"folders": NAMES, "real_data": NAMES, "pretrained_methods": NAMES}),
            "cost_benchmark": Table({"counters": NAMES, "data": NAMES}),
            "methods": Table({
                "with_class": NAMES, "attribute_getters": NAMES, "syntax": Map(NAMES), "implied": Map(NAMES),
                "property_decorators": NAMES, "class_level_decorators": NAMES, "value_types": NAMES,
            }),
        }),
        "cudnn_covers": NAMES,
        "complete_models": Table({
            "framework": str, "namespace": str, "deterministic": NAMES, "no_layer": NAMES, "outside_code": NAMES,
            "outside_methods": NAMES,
        }),
        "io_only": Map(NAMES),
        "layers": Table({"namespaces": NAMES, "runs": NAMES, "unnamed": NAMES, "containers": NAMES}),
        "package_aliases": Map(str),
        "raising": Map(str),
        "raising_fix_title": Map(str),
        "cublas_fix_title": str,
        "switches": Table({
            "attributes": Tables(Table({"names": NAMES, "on": List(SCALAR), "sets": NAMES})),
            "calls": Tables(Table({
                "names": NAMES, "arg": Table({"name": str, "pos": int, "key": str, "empty": bool}), "on": List(SCALAR),
                "sets": NAMES,
            })),
            "env": Tables(Table({"var": str, "patterns": Tables(Table({"pattern": str, "sets": NAMES}))})),
        }),
    }),
    "ND206": Table({
        "advice": Table({"session": str, "threading": str}), "config_calls": NAMES, "seed_calls": NAMES,
        "session_calls": NAMES, "thread_args": NAMES, "threading_calls": NAMES,
        "no_float_work": Table({"runs": NAMES, "methods": NAMES, "copies": NAMES}),
        "trained_model": Table({"restore_calls": NAMES, "restore_methods": NAMES, "forbidden_methods": NAMES}),
        "checkpoint_reads": NAMES,
    }),
    "ND207": Table({
        "atomic_calls": Tables(Table({"names": NAMES, "value_name": str, "value_pos": int, "advice": str})),
        "compile_calls": Tables(Table({"names": NAMES, "sources": Tables(Table({"name": str, "pos": int}))})),
        "extension_calls": Tables(Table({"names": NAMES, "sources": Table({"name": str, "pos": int})})),
        "extension_source_suffixes": NAMES, "integer_types": NAMES, "library_advice": str, "library_calls": NAMES, "source_advice": str,
        "source_patterns": NAMES,
    }),
    "ND208": Table({
        "kinds": KINDS, "ops": OPS, "integer_arrays": INTEGER_ARRAYS,
        "basic_index": Table({"scalar_calls": NAMES, "counters": NAMES}),
        "flag_values": Table({
            "sums": NAMES, "casts": Tables(Table({"names": NAMES, "pos": int})),
            "cast_methods": Tables(Table({"methods": NAMES, "pos": int})), "selects": NAMES, "exact_dtypes": NAMES,
            "rearranging": NAMES, "rearranging_methods": NAMES, "boolean_calls": NAMES, "keeping_decorators": NAMES,
        }),
    }),
    "ND209": Table({"fix": CODE_FIX, "needed_for": str}),
    "ND301": Table({
        "flow": Table({name: NAMES for name in (
            "accumulate_methods", "neutral_methods", "order_free", "order_keeping", "order_sensitive",
            "order_sensitive_suffixes", "output_methods", "set_makers", "set_methods", "archive_types",
            "key_reducers", "resorting_methods", "disposal_calls", "disposal_methods", "length_asserts",
            "basename_calls", "name_attributes", "folder_listings", "pattern_listings", "key_sorts",
            "split_names", "separators", "openers",
        )}),
        "functions": NAMES, "keyed_builders": NAMES, "packaging_calls": NAMES, "wrapper_names": NAMES, "item_getters": Tables(Table({"names": NAMES, "kw": str})),
        "display": Map(str), "path_methods": NAMES, "path_only_methods": NAMES, "path_returning_methods": NAMES,
        "path_types": NAMES, "sort_keys": Map(str), "walks": NAMES, "reshuffles": Map(str), "kept_first_picks": NAMES, "lookup_listings": NAMES,
        "temporary": Table({name: NAMES for name in (
            "makers", "methods", "fixtures", "flags", "fixture_decorators", "path_calls", "path_methods", "attributes",
        )}),
    }),
    "ND302": Table({"types": Table({name: NAMES for name in (
        "str_functions", "str_methods", "str_seq_functions", "str_seq_methods",
    )})}),
    "ND303": Table({
        "calls": Tables(Table({
            "names": NAMES, "mode": str, "id": ARG, "origin": ARG, "revision": str, "hash": Tables(ARG),
        })),
        "from_pretrained": Table({"id": ARG, "revision": str}),
        "from_pretrained_overrides": Tables(Table({"prefix": str, "id": ARG, "revision": str})),
        "config_builders": NAMES, "from_pretrained_packages": NAMES, "local_builders": NAMES, "local_dirs": NAMES,
        "local_extensions": NAMES, "path_calls": NAMES, "timm_prefixes": NAMES,
        "urls": Table({
            "calls": Tables(Table({
                "names": NAMES, "display": str, "mode": str, "url": ARG, "hash": Tables(ARG), "advice": str,
            }, frozenset({"names"}))),
            "branch_pattern": str, "checksum_calls": NAMES, "digest_words": NAMES, "hash_prefixes": NAMES,
            "parse_calls": NAMES, "pinned_patterns": NAMES, "save_calls": NAMES, "save_methods": NAMES,
        }),
    }),
    "ND304": Table({
        **{name: NAMES for name in (
            "checksum_calls", "checksum_prefixes", "data_extensions", "dataset_bases", "dataset_calls",
            "dataset_suffixes", "dvc_calls", "manifest_words", "not_data_extensions", "not_data_names",
            "not_data_words", "output_makers", "output_methods", "unpack_calls", "unpack_methods", "evidence_words",
            "command_line",
        )},
        "checksum_arguments": Tables(Table({"names": NAMES, "arg": str, "pos": int})),
        "directory_datasets": Tables(Table({"names": NAMES, "path": ARG, "name": ARG, "other_prefixes": NAMES}, frozenset({"names", "path"}))),
        "directory_methods": Tables(Table({"method": str, "path": ARG})),
    }),
    "ND305": Table({
        "flow": Table({name: NAMES for name in (
            "generator_methods", "passthrough_calls", "passthrough_methods", "slice_methods", "split_calls",
            "training_methods", "split_methods", "index_methods", "fold_splitters", "fold_words",
        )}),
        "hf_datasets": Table({"splits": NAMES}),
        "generators": Map(ARG),
        "hash_split": Table({"hash_function": str, "stable_hash": str, "text_words": NAMES, "wrappers": NAMES}),
        "shuffles": Tables(Table({"names": NAMES, "rng": str, "in_place": int, "seed": ARG, "fix_keyword": str})),
        "splitters": Tables(Table({
            "names": NAMES, "random_state": ARG, "shuffle": Table({"kw": str, "pos": int, "default": bool}),
        })),
    }),
    "ND306": Table({"methods": NAMES, "other_dataset_modules": NAMES, "producers": NAMES, "tf_modules": NAMES}),
    "ND307": Table({
        **{name: NAMES for name in (
            "determinism_calls", "determinism_env", "list_files", "option_fields", "options", "parallel_methods",
            "sloppy_calls", "training_flags",
        )},
        "tfds": Table({"builder_calls": NAMES, "load_calls": NAMES, "read_config": str, "shuffle_methods": NAMES}),
    }),
    "ND401": Table({"packages": NAMES, "tooling_words": NAMES}),
}
DATA["ND202"] = DATA["ND201"]

PINS: Dict[str, Schema] = {"findings": List(str), "fixed": str, "fixed_files": Map(str), "unfixed": str}  # what an example produces
EXAMPLE = Table({"source": str, "config": ANY, "files": Map(str), "path": str, **PINS}, frozenset({"source"}))
DOCS = Table(
    {
        "what": str, "why": str, "example": str, "use_instead": str, "fix_safety": str, "references": List(str),
        "example_config": ANY, "example_path": str, **{f"example_{key}": value for key, value in PINS.items()},
    },
    frozenset({"what", "why", "example", "use_instead", "fix_safety", "references"}),
)
FAMILY = Table({"name": str, "title": str, "requires": NAMES})


def rule_table(code: str) -> Table:
    """A table that defines rule ``code``."""
    return Table(
        {
            "name": str, "summary": str, "message": str, "fix": str, "fix_title": str, "docs": DOCS,
            "fires": Tables(EXAMPLE, strings=True), "passes": Tables(EXAMPLE, strings=True), "requires": NAMES,
            "test_code": str, "data": DATA.get(code, Table({})),
        },
        frozenset({"name", "summary", "message", "fix", "docs"}),
    )


def extension_table(code: str) -> Table:
    """A table that extends the ``data`` of rule ``code`` (a user's rule file)."""
    return Table({"data": DATA.get(code, Table({})), "requires": NAMES})


def check(value: Any, schema: Schema, where: str) -> None:
    """Raise ``ValueError`` naming ``where`` (``ND201.data.calls[0]``) for the first key
    the schema does not allow and the first value of the wrong type."""
    if isinstance(schema, _Any):
        return
    if isinstance(schema, Table):
        _check_table(value, schema, where)
    elif isinstance(schema, Map):
        if not isinstance(value, dict):
            raise ValueError(f"[{where}] must be a table")
        for key, item in value.items():
            check(item, schema.value, f"{where}.{key}")
    elif isinstance(schema, Tables):
        if not isinstance(value, list):
            raise ValueError(f"{_parent_key(where)} must be an array of tables")
        for index, item in enumerate(value):
            if not (schema.strings and isinstance(item, str)):
                check(item, schema.table, f"{where}[{index}]")
    elif isinstance(schema, List):
        if not isinstance(value, list) or not all(_is(item, schema.item) for item in value):
            raise ValueError(f"{_parent_key(where)} must be an array of {_describe(schema.item, plural=True)}")
    elif not _is(value, schema):
        raise ValueError(f"{_parent_key(where)} must be {_describe(schema)}")


def _check_table(value: Any, schema: Table, where: str) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{_parent_key(where)} must be a table")
    for key in value:
        if key not in schema.keys:
            known = ", ".join(sorted(schema.keys)) or "none"
            raise ValueError(f"unknown key '{key}' in [{where}] (known keys: {known})")
    missing = sorted(schema.required - set(value))
    if missing:
        raise ValueError(f"[{where}] lacks {', '.join(missing)}")
    for key, item in value.items():
        check(item, schema.keys[key], f"{where}.{key}")


def _parent_key(where: str) -> str:
    """``[ND201.data] key 'attributes'`` for ``ND201.data.attributes``."""
    table, _, key = where.rpartition(".")
    return f"[{table}] key '{key}'" if table else f"'{key}'"


def _is(value: Any, expected: Scalar) -> bool:
    types = expected if isinstance(expected, tuple) else (expected,)
    if isinstance(value, bool):  # a TOML boolean is no integer
        return bool in types
    return isinstance(value, types)


def _describe(expected: Scalar, plural: bool = False) -> str:
    names = {str: ("a string", "strings"), int: ("an integer", "integers"), bool: ("a boolean", "booleans")}
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(names[kind][plural] for kind in types)
