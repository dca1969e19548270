/* placeholder: being written */

