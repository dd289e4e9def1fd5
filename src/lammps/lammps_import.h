/* fricdem import-lammps (include/fricdem/io.h, fd_lammps_import): the door
 * of src/lammps/. The CLI, the Python package and the tests call
 * fd_lammps_import and nothing else in the folder. */
#ifndef FD_LAMMPS_IMPORT_H
#define FD_LAMMPS_IMPORT_H

#include "fricdem/io.h"

#endif
