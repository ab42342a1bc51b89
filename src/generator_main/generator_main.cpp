// The main() of every generator program: link Tessera::generator_main (add_tessera_generator()
// does) and register generators with TESSERA_REGISTER_GENERATOR.

#include <tessera/generator.h>

int main(int argc, char** argv) { return tessera::generator_main(argc, argv); }
