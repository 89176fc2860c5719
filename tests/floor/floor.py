from pyscript import document

document.body.append("Python ready.")
document.body.setAttribute("data-ready", "")
