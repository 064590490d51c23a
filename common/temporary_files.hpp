// The temporary files this process is writing, removed if it is interrupted: SIGINT,
// SIGTERM and SIGHUP unlink every registered path (async-signal-safe), then the signal
// takes its default action. Handlers are installed on first use, and only over the default
// disposition, so that a program with its own handlers keeps them.
#pragma once

#include <string>

namespace opsim {

/// Registers `path` for removal on a fatal signal; returns a slot for forget_temporary().
int remember_temporary(const std::string& path);
/// Unregisters the slot (the file was renamed or removed).
void forget_temporary(int slot);

/// Removes the temporaries ".NAME.tmp-PID-*" in `directory` whose process no longer exists.
void remove_stale_temporaries(const std::string& directory, const std::string& name);

/// ".NAME.tmp-PID-": the prefix of this process's temporaries for NAME.
std::string temporary_prefix(const std::string& name);

}  // namespace opsim
