/* A shared library that is not a Hodu artifact: no descriptor symbol. */
int not_a_model(int value) { return value + 1; }
