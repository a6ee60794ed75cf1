/**
 * Library objects the engine knows by qualified name, whether the target contains their source
 * (the standard library as a target) or not (msgspec, pydantic, torch are usually not readable).
 */

/** Canonical spellings: re-export paths and backports map to one name. */
const ALIASES: Record<string, string> = {
  'builtins.object': 'object',
  'typing_extensions.Protocol': 'typing.Protocol',
  'typing_extensions.Generic': 'typing.Generic',
  'typing_extensions.NamedTuple': 'typing.NamedTuple',
  'typing_extensions.TypedDict': 'typing.TypedDict',
  'typing_extensions.override': 'typing.override',
  'typing_extensions.final': 'typing.final',
  'typing_extensions.runtime_checkable': 'typing.runtime_checkable',
  'typing_extensions.overload': 'typing.overload',
  'typing_extensions.dataclass_transform': 'typing.dataclass_transform',
  'typing_extensions.deprecated': 'warnings.deprecated',
  'typing.runtime': 'typing.runtime_checkable',
  'pydantic.main.BaseModel': 'pydantic.BaseModel',
  'pydantic.fields.Field': 'pydantic.Field',
  'pydantic.config.ConfigDict': 'pydantic.ConfigDict',
  'pydantic.dataclasses.dataclass': 'pydantic.dataclasses.dataclass',
  'msgspec.structs.Struct': 'msgspec.Struct',
  'enum.EnumType': 'enum.EnumMeta',
  '_py_abc.ABCMeta': 'abc.ABCMeta',
  'abc.abstractclassmethod': 'abc.abstractmethod',
  'abc.abstractstaticmethod': 'abc.abstractmethod',
  'torch.nn.modules.module.Module': 'torch.nn.Module',
  // a Module whose forward hands back its input and whose __init__ takes anything: for the names
  // it has and how it is built and called, what torch.nn.Module is (forward is in its list)
  'torch.nn.Identity': 'torch.nn.Module',
  'torch.nn.modules.linear.Identity': 'torch.nn.Module',
  'attr.attrs': 'attr.s',
  'attr.attrib': 'attr.ib',
  'attrs.define': 'attr.define',
  'attrs.frozen': 'attr.define',
  'attrs.mutable': 'attr.define',
  'attr.frozen': 'attr.define',
  'attr.mutable': 'attr.define',
  'attrs.field': 'attr.ib',
  'attr.field': 'attr.ib',
};

export function canonical(qualname: string): string {
  return ALIASES[qualname] ?? qualname;
}

export const KNOWN = new Set<string>([
  'object',
  'typing.Generic',
  'typing.Protocol',
  'abc.ABC',
  'typing.NamedTuple',
  'typing.TypedDict',
  'collections.namedtuple',
  'dataclasses.dataclass',
  'dataclasses.field',
  'dataclasses.InitVar',
  'dataclasses.KW_ONLY',
  'pydantic.dataclasses.dataclass',
  'pydantic.BaseModel',
  'pydantic.Field',
  'msgspec.Struct',
  'msgspec.field',
  'enum.Enum',
  'enum.IntEnum',
  'enum.Flag',
  'enum.IntFlag',
  'enum.StrEnum',
  'enum.ReprEnum',
  'enum.EnumMeta',
  'abc.ABCMeta',
  'builtins.type',
  'functools.partial',
  'functools.cache',
  'functools.lru_cache',
  'functools.wraps',
  'functools.cached_property',
  'functools.total_ordering',
  'contextlib.contextmanager',
  'contextlib.asynccontextmanager',
  'abc.abstractmethod',
  'typing.override',
  'typing.final',
  'typing.runtime_checkable',
  'typing.overload',
  'typing.dataclass_transform',
  'warnings.deprecated',
  'builtins.staticmethod',
  'builtins.classmethod',
  'builtins.property',
  'torch.nn.Module',
  'torch.inference_mode',
  'torch.no_grad',
  'torch.enable_grad',
  'attr.s',
  'attr.define',
  'attr.ib',
]);

export function isKnown(qualname: string): boolean {
  return KNOWN.has(canonical(qualname));
}

/** Decorators that leave a function's call signature as it is (errors surface when it is called). */
export const TRANSPARENT_FUNCTION_DECORATORS = new Set<string>([
  'functools.cache',
  'functools.lru_cache',
  'functools.wraps',
  'contextlib.contextmanager',
  'contextlib.asynccontextmanager',
  'abc.abstractmethod',
  'typing.override',
  'typing.final',
  'warnings.deprecated',
  'torch.inference_mode',
  'torch.no_grad',
  'torch.enable_grad',
]);

/** Class decorators that return the class unchanged. */
export const TRANSPARENT_CLASS_DECORATORS = new Set<string>([
  'typing.final',
  'typing.runtime_checkable',
  'warnings.deprecated',
  'functools.total_ordering',
]);

/** Bases that may follow the class that owns `__init__`/`__new__` without making a call unknown. */
export const ALLOWED_AFTER_OWNER = new Set<string>([
  'object',
  'typing.Generic',
  'typing.Protocol',
  'abc.ABC',
  'torch.nn.Module',
  'torch.nn.Parameter',
  'torch.nn.parameter.Parameter',
  'transformers.PretrainedConfig',
  'transformers.configuration_utils.PretrainedConfig',
]);

/**
 * The public attributes of torch.nn.Module (methods and class attributes, across torch 2.x). Its
 * other attributes are private (`_parameters`...) or served by its `__getattr__` from what an
 * instance registers (`self.x = Submodule()`, `register_buffer("x", ...)`): a public name outside
 * this set is the subclass's own, or nothing.
 */
export const NN_MODULE_MEMBERS = new Set<string>([
  'T_destination', 'dump_patches', 'training', 'call_super_init', 'forward', '__call__',
  'register_buffer', 'register_parameter', 'add_module', 'register_module', 'get_submodule', 'set_submodule',
  'get_parameter', 'get_buffer', 'get_extra_state', 'set_extra_state', 'apply', 'cuda', 'ipu', 'xpu', 'mtia',
  'cpu', 'type', 'float', 'double', 'half', 'bfloat16', 'to_empty', 'to', 'register_full_backward_pre_hook',
  'register_backward_hook', 'register_full_backward_hook', 'register_forward_pre_hook', 'register_forward_hook',
  'state_dict', 'register_state_dict_pre_hook', 'register_state_dict_post_hook', 'register_load_state_dict_pre_hook',
  'register_load_state_dict_post_hook', 'load_state_dict', 'parameters', 'named_parameters', 'buffers',
  'named_buffers', 'children', 'named_children', 'modules', 'named_modules', 'train', 'eval', 'requires_grad_',
  'zero_grad', 'share_memory', 'extra_repr', 'compile',
]);

/**
 * The private (single-underscore) attributes of torch.nn.Module across torch 2.x: its methods,
 * class attributes and what its `__init__` sets on every instance.
 */
export const NN_MODULE_PRIVATE = new Set<string>([
  '_version', '_parameters', '_buffers', '_non_persistent_buffers_set', '_backward_pre_hooks',
  '_backward_hooks', '_is_full_backward_hook', '_forward_hooks', '_forward_hooks_with_kwargs',
  '_forward_hooks_always_called', '_forward_pre_hooks', '_forward_pre_hooks_with_kwargs',
  '_state_dict_hooks', '_state_dict_pre_hooks', '_load_state_dict_pre_hooks',
  '_load_state_dict_post_hooks', '_modules', '_backend', '_apply', '_get_backward_hooks',
  '_get_backward_pre_hooks', '_maybe_warn_non_full_backward_hook', '_slow_forward', '_call_impl',
  '_wrapped_call_impl', '_compiled_call_impl', '_register_state_dict_hook', '_save_to_state_dict',
  '_register_load_state_dict_pre_hook', '_load_from_state_dict', '_named_members', '_get_name',
  '_replicate_for_data_parallel',
]);

/**
 * Whether `name` is surely not an attribute torch.nn.Module defines itself: a public name outside
 * `NN_MODULE_MEMBERS`, or a private one (one leading underscore) outside `NN_MODULE_PRIVATE`.
 * Dunder names are never sure (the class and `object` define many).
 */
export function notNnModuleMember(name: string): boolean {
  if (name.startsWith('__')) return false;
  return name.startsWith('_') ? !NN_MODULE_PRIVATE.has(name) : !NN_MODULE_MEMBERS.has(name);
}

/** Built-in exception classes: their `__new__` accepts any arguments. */
export function isBuiltinException(qualname: string): boolean {
  return /^builtins\.(BaseException|Exception|[A-Za-z]*(Error|Warning|Exit|Interrupt|Iteration|Exception))$/.test(qualname);
}

export const ENUM_BASES = new Set(['enum.Enum', 'enum.IntEnum', 'enum.Flag', 'enum.IntFlag', 'enum.StrEnum', 'enum.ReprEnum']);

/** Names of the builtins module: a star import from a compiled module does not shadow them. */
export const BUILTIN_NAMES = new Set(
  (
    'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError BrokenPipeError BufferError ' +
    'BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError ' +
    'DeprecationWarning EOFError Ellipsis EncodingWarning EnvironmentError Exception ExceptionGroup FileExistsError ' +
    'FileNotFoundError FloatingPointError FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError ' +
    'InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError NameError ' +
    'NotADirectoryError NotImplemented NotImplementedError OSError OverflowError PendingDeprecationWarning PermissionError ' +
    'ProcessLookupError RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration StopIteration ' +
    'SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError TypeError UnboundLocalError UnicodeDecodeError ' +
    'UnicodeEncodeError UnicodeError UnicodeTranslateError UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter ' +
    'all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod ' +
    'enumerate eval exec filter float format frozenset getattr globals hasattr hash hex id input int isinstance issubclass iter len ' +
    'list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice ' +
    'sorted staticmethod str sum super tuple type vars zip'
  ).split(' '),
);

/**
 * Built-in exceptions whose constructor is BaseException's: any positional arguments, no
 * keywords (`Exception(x=1)` is a TypeError). Exceptions with keyword parameters of their own
 * (ImportError, AttributeError, NameError, SyntaxError, OSError and others) are not listed.
 */
export const SIMPLE_EXCEPTIONS = new Set(
  (
    'BaseException Exception ArithmeticError AssertionError BufferError EOFError FloatingPointError GeneratorExit IndexError ' +
    'KeyError KeyboardInterrupt LookupError MemoryError NotImplementedError OverflowError RecursionError ReferenceError ' +
    'RuntimeError StopAsyncIteration SystemError TypeError ValueError ZeroDivisionError Warning UserWarning DeprecationWarning ' +
    'PendingDeprecationWarning SyntaxWarning RuntimeWarning FutureWarning ImportWarning UnicodeWarning BytesWarning ResourceWarning ' +
    'EncodingWarning'
  )
    .split(' ')
    .map((n) => `builtins.${n}`),
);
