// Running the recursive front end on a thread with a large stack (internal).
#pragma once

#include <functional>

namespace sfg {

// Runs `fn` on a thread with a 256 MiB stack (only touched pages cost memory): the AST of a long
// `|` or `|>` chain is as deep as the chain, and parsing, sema and destruction all recurse on it.
// Exceptions thrown by `fn` are rethrown here.
void run_with_big_stack(const std::function<void()>& fn);

} // namespace sfg
