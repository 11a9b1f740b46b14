"""The configs shipped with evo: this folder is the package ``evo.configs`` in an
installed evo, so that ``evo run quick`` finds ``quick.yaml`` from any folder (see
``evo.config.loading.shipped_config``)."""
