function pituiFold(o){document.querySelectorAll('details').forEach(function(d){d.open=o;});}
