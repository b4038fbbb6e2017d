// Cooperative interruption: SIGINT/SIGTERM set a flag that long-running loops
// poll, so they can commit finished work and stop cleanly. A second signal
// restores the default action and exits at once.
#pragma once

namespace clgen {

// Installs the handlers (idempotent).
void install_interrupt_handlers();
// True once SIGINT or SIGTERM arrived (or request_interrupt() was called).
bool interrupted();
void request_interrupt();  // for tests and internal cancellation
void clear_interrupt();

}  // namespace clgen
