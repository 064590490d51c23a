#!/usr/bin/env python3
"""Records real training steps of a small model with torch.profiler and writes the trace.

The trace is a PyTorch profiler Chrome trace in Kineto's layout (object form, `traceEvents`),
the input of `opsim replay`: `cpu_op` events with `Input Dims` (record_shapes=True),
`user_annotation` spans `ProfilerStep#N` (one per profiled step) and, on CUDA, the runtime
calls, kernels and copies. Where this torch was built without Kineto (Debian's python3-torch
1.13), the script writes the same layout itself from the profiler's own events (CPU only)
and says so in the trace's top-level `recording` object.

    scripts/record-pytorch-step.py --model mlp --threads 1 -o mlp-cpu.json.gz
    scripts/record-pytorch-step.py --model cnn --device cuda --dtype bfloat16 -o cnn.json.gz

Exit codes: 0 written; 2 bad input, torch missing, or a device this torch cannot use;
1 the recording failed (torch error, or a trace without the expected steps).
"""

import argparse
import gzip
import json
import os
import shlex
import shutil
import signal
import stat
import sys
import tempfile
import time
import warnings

PROG = "record-pytorch-step.py"
MEMORY_LIMIT_BYTES = 4 << 30  # what one recording may need, parameters and activations together
CNN_CLASSES = 10
# at::RecordScope::USER_SCOPE: record_function spans (ProfilerStep#N, Optimizer.step#SGD.step)
USER_SCOPE = 7
DEFAULT_SIZES = {"mlp": {"width": 4096, "input_size": 1024}, "cnn": {"width": 16, "input_size": 32}}


class BadInput(Exception):
    """Input the user can fix: one line, exit 2."""


class RecordingFailed(Exception):
    """The run itself went wrong: one line, exit 1."""


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(f"{message} (see --help)")


def int_in_range(low, high):
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}..{high}")
        return value
    return parse


def parse_arguments(argv):
    parser = OneLineParser(
        prog=PROG,
        description="Record real training steps of a small model with torch.profiler "
                    "(record_shapes=True) and write a PyTorch profiler (Kineto) Chrome trace.")
    parser.add_argument("--model", choices=("mlp", "cnn"), default="mlp",
                        help="mlp: Linear+ReLU layers INPUT-WIDTH-WIDTH-INPUT, MSE loss; "
                             "cnn: two 3x3 conv+ReLU+max-pool layers (WIDTH, 2*WIDTH channels) "
                             "and a linear classifier, cross-entropy loss (default mlp)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                        help="parameters and data type (bfloat16 is meant for CUDA)")
    parser.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd",
                        help="sgd with momentum 0.9, or adam (default sgd)")
    parser.add_argument("--steps", type=int_in_range(1, 100), default=4,
                        help="profiled training steps, each one ProfilerStep#N span (default 4)")
    parser.add_argument("--warmup", type=int_in_range(1, 100), default=1,
                        help="training steps before them, traced by the profiler's warm-up "
                             "and dropped; at least 1 (without one torch warns, and torch "
                             "1.13 names two steps ProfilerStep#0) (default 1)")
    parser.add_argument("--batch", type=int_in_range(1, 65536), default=64,
                        help="samples per step (default 64)")
    parser.add_argument("--width", type=int_in_range(1, 65536),
                        help="mlp: hidden features (default 4096); cnn: first conv's output "
                             "channels (default 16)")
    parser.add_argument("--input-size", type=int_in_range(1, 65536),
                        help="mlp: input and output features (default 1024); cnn: image side "
                             "in pixels, 3 channels, at least 4 (default 32)")
    parser.add_argument("--threads", type=int_in_range(1, 1024),
                        help="torch.set_num_threads (default: torch's own choice)")
    parser.add_argument("--seed", type=int_in_range(0, 2**32 - 1), default=0,
                        help="torch.manual_seed for the weights and the data (default 0)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="trace to write, NAME.json or NAME.json.gz (gzip)")
    arguments = parser.parse_args(argv)
    arguments.command = " ".join(shlex.quote(word) for word in ["scripts/" + PROG] + list(argv))
    fill_default_sizes(arguments)
    return arguments


def fill_default_sizes(arguments):
    defaults = DEFAULT_SIZES[arguments.model]
    if arguments.width is None:
        arguments.width = defaults["width"]
    if arguments.input_size is None:
        arguments.input_size = defaults["input_size"]
    if arguments.model == "cnn" and arguments.input_size < 4:
        raise BadInput(f"argument --input-size: {arguments.input_size} is below 4, "
                       "the smallest image two 2x2 max-pools leave a pixel of")


def check_sizes(arguments):
    """Refuses a model and batch that would need more than MEMORY_LIMIT_BYTES."""
    element_bytes = 4 if arguments.dtype == "float32" else 2
    parameters, activations = model_element_counts(arguments)
    # weights, gradients and up to two optimizer states; activations kept for backward and
    # their gradients
    needed = element_bytes * (4 * parameters + 2 * activations)
    if needed > MEMORY_LIMIT_BYTES:
        raise BadInput(f"this model and batch need about {needed / 2**30:.1f} GiB "
                       f"(limit {MEMORY_LIMIT_BYTES >> 30} GiB): lower --batch, --width "
                       "or --input-size")


def model_element_counts(arguments):
    batch, width, size = arguments.batch, arguments.width, arguments.input_size
    if arguments.model == "mlp":
        parameters = size * width + width + width * width + width + width * size + size
        activations = batch * (size + 4 * width + size)
        return parameters, activations
    pooled_side = size // 4
    flat = 2 * width * pooled_side * pooled_side
    parameters = (3 * 9 * width + width) + (width * 9 * 2 * width + 2 * width) + \
        (flat * CNN_CLASSES + CNN_CLASSES)
    pixels = size * size
    activations = batch * (3 * pixels + 2 * width * pixels + width * pixels // 4 +
                           4 * width * pixels // 4 + 2 * width * pixels // 16 + CNN_CLASSES)
    return parameters, activations


def check_output_path(path):
    """Refuses an output that cannot be written, before any work starts."""
    if not (path.endswith(".json") or path.endswith(".json.gz")):
        raise BadInput(f"{path}: the output name must end in .json or .json.gz")
    directory = os.path.dirname(path) or "."
    if not os.path.exists(directory):
        raise BadInput(f"{path}: directory {directory} does not exist")
    if not os.path.isdir(directory):
        raise BadInput(f"{path}: {directory} is not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise BadInput(f"{path}: directory {directory} is not writable")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise BadInput(f"{path}: exists and is not a regular file "
                       "(a link, directory, FIFO or device is never replaced)")


class OutputFile:
    """Temporaries in the output's directory, renamed into place; removed on every exit."""

    def __init__(self, path):
        self.path = path
        self.directory = os.path.dirname(path) or "."
        self.temporaries = []

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        for name in self.temporaries:
            try:
                os.unlink(name)
            except FileNotFoundError:
                pass

    def temporary(self):
        descriptor, name = tempfile.mkstemp(
            dir=self.directory, prefix="." + os.path.basename(self.path) + ".", suffix=".tmp")
        os.close(descriptor)
        self.temporaries.append(name)
        return name

    def commit(self, name):
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(name, 0o666 & ~umask)
        with open(name, "rb") as written:
            os.fsync(written.fileno())
        os.replace(name, self.path)
        self.temporaries.remove(name)
        directory = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def import_torch():
    try:
        import torch
        import torch.profiler
    except ImportError:
        raise BadInput(f"no torch for {sys.executable}: on Debian, "
                       "sudo apt-get install python3-torch (for /usr/bin/python3)") from None
    except Exception as error:  # a broken installation: name it on one line
        raise BadInput(f"cannot import torch: {one_line(error)}") from None
    return torch


def check_device(torch, arguments):
    if arguments.device == "cpu":
        return
    if not torch.cuda.is_available():
        raise BadInput(f"--device cuda: torch {torch.__version__} sees no CUDA device here")
    if not torch.autograd.kineto_available():
        raise BadInput(f"--device cuda: torch {torch.__version__} has no Kineto, "
                       "so its profiler cannot record GPU activity")
    if arguments.dtype == "bfloat16" and not torch.cuda.is_bf16_supported():
        raise BadInput(f"--dtype bfloat16: {torch.cuda.get_device_name()} does not support it")


def build_model(torch, arguments):
    nn = torch.nn
    width, size = arguments.width, arguments.input_size
    if arguments.model == "mlp":
        return nn.Sequential(nn.Linear(size, width), nn.ReLU(), nn.Linear(width, width),
                             nn.ReLU(), nn.Linear(width, size))
    pooled_side = size // 4
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(2 * width * pooled_side * pooled_side, CNN_CLASSES))


def make_host_batch(torch, arguments, dtype):
    """One batch in host memory (pinned for CUDA); each step copies it to the device. The
    targets are float32 or class indices: the loss is computed in float32."""
    size, batch = arguments.input_size, arguments.batch
    if arguments.model == "mlp":
        inputs = torch.randn(batch, size, dtype=dtype)
        targets = torch.randn(batch, size)
    else:
        inputs = torch.randn(batch, 3, size, size, dtype=dtype)
        targets = torch.randint(0, CNN_CLASSES, (batch,))
    if arguments.device == "cuda":
        inputs, targets = inputs.pin_memory(), targets.pin_memory()
    return inputs, targets


def make_optimizer(torch, arguments, model):
    if arguments.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=1e-4)
    return torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


class Training:
    """The model, its optimizer and loss, and one host batch: what a step needs."""

    def __init__(self, torch, arguments):
        self.torch = torch
        self.device = torch.device(arguments.device)
        dtype = getattr(torch, arguments.dtype)
        torch.manual_seed(arguments.seed)
        self.model = build_model(torch, arguments).to(device=self.device, dtype=dtype)
        self.optimizer = make_optimizer(torch, arguments, self.model)
        self.loss_function = torch.nn.MSELoss() if arguments.model == "mlp" \
            else torch.nn.CrossEntropyLoss()
        self.host_inputs, self.host_targets = make_host_batch(torch, arguments, dtype)

    def step(self):
        """One real training step; returns its wall time in ns (GPU work included)."""
        start = time.perf_counter_ns()
        inputs = self.host_inputs.to(self.device, non_blocking=True)
        targets = self.host_targets.to(self.device, non_blocking=True)
        self.optimizer.zero_grad(set_to_none=True)
        outputs = self.model(inputs)
        if outputs.dtype != self.torch.float32:
            outputs = outputs.float()  # as mixed precision does (torch 1.13 has no CPU bf16 MSE)
        loss = self.loss_function(outputs, targets)
        loss.backward()
        self.optimizer.step()
        if self.device.type == "cuda":
            self.torch.cuda.synchronize()
        return time.perf_counter_ns() - start


def record(torch, arguments, training, raw_trace_path):
    """Runs warm-up and profiled steps under torch.profiler; returns each step's wall ns."""
    profiler_api = torch.profiler
    activities = [profiler_api.ProfilerActivity.CPU]
    if arguments.device == "cuda":
        activities.append(profiler_api.ProfilerActivity.CUDA)
    schedule = profiler_api.schedule(wait=0, warmup=arguments.warmup, active=arguments.steps,
                                     repeat=1)
    exported = []

    def export(profiler):
        export_trace(torch, profiler, raw_trace_path)
        exported.append(raw_trace_path)

    # torch 2.x warns that a schedule's later cycles drop earlier events; there is one cycle
    warnings.filterwarnings("ignore", message=".*Profiler clears events at the end of each cycle")
    step_ns = []
    with profiler_api.profile(activities=activities, schedule=schedule, record_shapes=True,
                              on_trace_ready=export) as profiler:
        for index in range(arguments.warmup + arguments.steps):
            if index == arguments.warmup and torch.autograd.kineto_available():
                profiler.add_metadata_json("recording",
                                           json.dumps(recording_metadata(torch, arguments)))
            step_ns.append(training.step())
            profiler.step()
    if not exported:
        raise RecordingFailed("torch.profiler never handed over the trace")
    return step_ns


def export_trace(torch, profiler, path):
    if torch.autograd.kineto_available():
        profiler.export_chrome_trace(path)
        return
    with open(path, "w") as out:
        json.dump(trace_from_profiler_events(profiler.profiler.kineto_results.events()), out)


def trace_from_profiler_events(events):
    """Kineto's Chrome layout for the CPU events a torch without Kineto recorded."""
    trace_events = []
    threads = set()
    pid = os.getpid()
    for index, event in enumerate(events):
        threads.add(event.start_thread_id())
        trace_events.append(host_event(event, index, pid))
    names = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
              "args": {"name": "python3"}}]
    names += [{"ph": "M", "name": "thread_name", "pid": pid, "tid": thread,
               "args": {"name": f"thread {thread}"}} for thread in sorted(threads)]
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
            "traceEvents": names + trace_events}


def host_event(event, index, pid):
    category = "user_annotation" if event.scope() == USER_SCOPE else "cpu_op"
    args = {"External id": event.correlation_id(), "Ev Idx": index}
    if event.sequence_nr() >= 0:
        args["Sequence number"] = event.sequence_nr()
        args["Fwd thread id"] = event.fwd_thread_id()
    if category == "cpu_op":
        args["Input Dims"] = [list(shape) for shape in event.shapes()]
        args["Input type"] = list(event.dtypes())
    return {"ph": "X", "cat": category, "name": event.name(), "pid": pid,
            "tid": event.start_thread_id(), "ts": event.start_us(),
            "dur": event.duration_us(), "args": args}


def load_trace(path):
    try:
        with open(path) as trace_file:
            trace = json.load(trace_file)
    except (OSError, ValueError) as error:
        raise RecordingFailed(f"the profiler's trace is not readable JSON: {one_line(error)}")
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise RecordingFailed("the profiler's trace has no traceEvents list")
    return trace


def profiler_step_spans(trace):
    """The host's ProfilerStep#N spans, in time order (not the GPU's gpu_user_annotation)."""
    spans = [event for event in trace["traceEvents"]
             if isinstance(event, dict) and event.get("ph") == "X"
             and event.get("cat") == "user_annotation"
             and str(event.get("name", "")).startswith("ProfilerStep#")]
    return sorted(spans, key=lambda span: float(span.get("ts", 0)))


def recording_metadata(torch, arguments):
    return {
        "script": "scripts/record-pytorch-step.py",
        "command": arguments.command,
        "torch": torch.__version__,
        "kineto": torch.autograd.kineto_available(),
        "writer": "torch.profiler export_chrome_trace" if torch.autograd.kineto_available()
        else "this script, from torch.profiler's events (this torch has no Kineto)",
        "device": device_name(torch, arguments),
        "threads": torch.get_num_threads(),
    }


def device_name(torch, arguments):
    if arguments.device == "cuda":
        return torch.cuda.get_device_name()
    return f"cpu ({cpu_model()})"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "model unknown"


def write_output(output, raw_trace_path, trace, torch, arguments):
    """The final file: torch's own bytes where it exported them (the `recording` object added
    through the profiler's metadata), else the trace written here."""
    if not torch.autograd.kineto_available():
        trace["recording"] = recording_metadata(torch, arguments)
        with open(raw_trace_path, "w") as raw:
            json.dump(trace, raw, separators=(",", ":"))
    final = raw_trace_path
    if output.path.endswith(".gz"):
        final = output.temporary()
        with open(raw_trace_path, "rb") as source, open(final, "wb") as target:
            with gzip.GzipFile(filename="", mode="wb", fileobj=target, mtime=0) as compressed:
                shutil.copyfileobj(source, compressed, 1 << 20)
    output.commit(final)
    return os.path.getsize(output.path)


def describe_run(torch, arguments):
    if arguments.model == "mlp":
        size, width = arguments.input_size, arguments.width
        shape = f"mlp {size}-{width}-{width}-{size}"
    else:
        side, width = arguments.input_size, arguments.width
        shape = f"cnn 3x{side}x{side} conv{width} conv{2 * width} fc{CNN_CLASSES}"
    kineto = "Kineto" if torch.autograd.kineto_available() else \
        "no Kineto: trace written from the profiler's events"
    return (f"torch {torch.__version__} ({kineto}), device {device_name(torch, arguments)}, "
            f"threads {torch.get_num_threads()}, {shape}, batch {arguments.batch}, "
            f"{arguments.dtype}, {arguments.optimizer}")


def print_steps(arguments, step_ns, spans):
    for index, nanoseconds in enumerate(step_ns):
        label = "warmup"
        if index >= arguments.warmup:
            span = spans[index - arguments.warmup]
            label = f"{span['name']} (span {float(span['dur']) / 1000:.3f} ms)"
        print(f"step {index}: {nanoseconds / 1e6:.3f} ms  {label}")


def run(arguments):
    check_output_path(arguments.output)
    check_sizes(arguments)
    torch = import_torch()
    check_device(torch, arguments)
    if arguments.threads is not None:
        torch.set_num_threads(arguments.threads)
    print(describe_run(torch, arguments), flush=True)
    with OutputFile(arguments.output) as output:
        raw_trace_path = output.temporary()
        try:
            training = Training(torch, arguments)
            step_ns = record(torch, arguments, training, raw_trace_path)
        except (RuntimeError, MemoryError) as error:
            raise RecordingFailed(f"torch failed: {one_line(error)}") from None
        trace = load_trace(raw_trace_path)
        spans = profiler_step_spans(trace)
        if len(spans) != arguments.steps:
            raise RecordingFailed(f"the trace has {len(spans)} ProfilerStep spans, "
                                  f"expected {arguments.steps}")
        size_bytes = write_output(output, raw_trace_path, trace, torch, arguments)
    print_steps(arguments, step_ns, spans)
    print(f"wrote {arguments.output}: {len(trace['traceEvents'])} events, "
          f"{len(spans)} ProfilerStep spans, {size_bytes} bytes")


def one_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def exit_on_terminate(signal_number, frame):
    raise SystemExit(128 + signal_number)  # unwinds, so the temporaries are removed


def main(argv):
    signal.signal(signal.SIGTERM, exit_on_terminate)
    try:
        run(parse_arguments(argv))
    except BadInput as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    except RecordingFailed as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"{PROG}: {one_line(error)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
