// Empty: this file only gives the shared precompiled header (see CMakeLists.txt) a target to live in.
