/* fricdem import-lammps (app/import_lammps.c).
 * Must not touch: the world and the steppers. */
#ifndef FRICDEM_APP_IMPORT_LAMMPS_H
#define FRICDEM_APP_IMPORT_LAMMPS_H

/* argv[0] is "import-lammps"; returns the exit status. */
int command_import_lammps(int argc, char** argv);

#endif
